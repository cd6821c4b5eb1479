package config

import (
	"errors"
	"fmt"
)

// FieldError names the setting at fault: its path as a profile writes it
// ("cases[2].batch_records", "fill.keys") and, when it came from a file, the
// line. Profiles and flags render the same error each in their own terms.
type FieldError struct {
	// Path is the setting's dotted YAML path.
	Path string
	// Line is the 1-based line in the profile, 0 when unknown or not a file.
	Line int
	// Msg says what is wrong with the value.
	Msg string
}

func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Path, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// fieldErr builds a FieldError with a formatted message.
func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Prefix puts a parent path in front of err's path ("cases[1]" + "threads");
// errors that are not FieldErrors are returned unchanged.
func Prefix(parent string, err error) error {
	var fe *FieldError
	if parent == "" || !errors.As(err, &fe) {
		return err
	}
	out := *fe
	if out.Path == "" {
		out.Path = parent
	} else {
		out.Path = parent + "." + out.Path
	}
	return &out
}
