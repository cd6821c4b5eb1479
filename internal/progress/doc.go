// Package progress shows how far long work has come: a bar on a terminal,
// and elsewhere (a pipe, a CI log) one plain line every few seconds, so logs
// are not filled with carriage-return frames.
package progress
