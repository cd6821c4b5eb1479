package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/topicshape"
)

// ReadOptions tune what Read reads.
type ReadOptions struct {
	// MaxRead bounds each changelog's shape read to about that many
	// offsets (a prefix of each partition, said so); 0 reads no shape,
	// negative reads whole topics.
	MaxRead int64
	// Progress, when set, gets a line per topic read.
	Progress io.Writer
	// Changelogs, when set, are the application's changelog topics named
	// explicitly (--changelog), read instead of every APP-*-changelog; a
	// name that is not a topic is an error. Default: none (the prefix).
	Changelogs []string
}

// ErrNothing is returned when neither a changelog nor the group could be
// read: there is nothing to answer from.
var ErrNothing = errors.New("nothing of the application could be read")

// Read reads the application app as it is now, with describe and list
// requests and, for the shapes, a consumer without a group on manually
// assigned partitions (topicshape.Read): it joins no group, commits
// nothing and creates, writes or alters nothing. What it could not see is
// listed in the report's Unseen; the error is ErrNothing only when it saw
// nothing at all.
func Read(ctx context.Context, cfg cluster.Config, app string, o ReadOptions) (*Report, error) {
	r := &Report{Schema: Schema, Application: app, Changelogs: []Changelog{}, Instances: []*Instance{}, Assumptions: []string{}, Unseen: []string{}}
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if err := readChangelogs(ctx, cfg, adm, app, r, o); errors.Is(err, errNoSuchChangelog) {
		return nil, err
	} else if err != nil {
		r.Unseen = append(r.Unseen, "changelog topics: "+err.Error())
	}
	if err := readGroup(ctx, cl, adm, app, r); err != nil {
		r.Unseen = append(r.Unseen, "consumer group "+app+": "+err.Error())
	}
	resolveAmbiguous(r)
	if err := readSourceTopics(ctx, adm, r); err != nil {
		r.Unseen = append(r.Unseen, "the group's source topics: "+err.Error())
	}
	measureWriteRate(ctx, adm, r)
	if ctx.Err() != nil {
		// What the interrupt cut is not unseen: the audit is not complete.
		return r, fmt.Errorf("audit of %s interrupted before it finished reading (%w): no audit given", app, ctx.Err())
	}
	if len(r.Changelogs) == 0 && (r.Group == nil || len(r.Group.Members) == 0) {
		return r, fmt.Errorf("application %s: %w: %s", app, ErrNothing, strings.Join(r.Unseen, "; "))
	}
	return r, nil
}

// measureWriteRate reads the changelogs' end offsets again, after the
// shapes and the group were read and at least minWriteWindow after they
// were first listed: the application's write rate over that window, left
// nil when it cannot be read.
func measureWriteRate(ctx context.Context, adm *kadm.Client, r *Report) {
	endsAt := r.endsListed
	if len(r.Changelogs) == 0 {
		return
	}
	// A window of at least minWriteWindow, so that a rate is more than
	// the few records of one commit.
	select {
	case <-time.After(minWriteWindow - time.Since(endsAt)):
	case <-ctx.Done():
		return
	}
	topics := make([]string, len(r.Changelogs))
	for i, c := range r.Changelogs {
		topics[i] = c.Topic
	}
	again, err := adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = again.Error()
	}
	window := time.Since(endsAt).Seconds()
	if err != nil || window <= 0 {
		return
	}
	var written int64
	for _, c := range r.Changelogs {
		for p, was := range c.EndOffsets {
			if e, ok := again.Lookup(c.Topic, int32(p)); ok {
				written += max(0, e.Offset-was)
			}
		}
	}
	rate := float64(written) / window
	r.WriteRecordsPerSecond, r.WriteWindowSeconds = &rate, window
}

// minWriteWindow is the least time between the two reads of the
// changelogs' end offsets that measure the application's write rate.
const minWriteWindow = 2 * time.Second

// readChangelogs lists the topics named APP-*-changelog and reads their
// offsets, sizes on disk and, within MaxRead, their shapes.
func readChangelogs(ctx context.Context, cfg cluster.Config, adm *kadm.Client, app string, r *Report, o ReadOptions) error {
	td, err := adm.ListTopics(ctx)
	if err != nil {
		return fmt.Errorf("listing topics: %w", err)
	}
	names := changelogNames(td, app)
	if len(o.Changelogs) > 0 {
		if names, err = namedChangelogs(td, o.Changelogs); err != nil {
			return err
		}
	} else {
		r.ambiguous = ambiguousNames(ctx, adm, app, names)
	}
	if len(names) == 0 {
		r.Unseen = append(r.Unseen, fmt.Sprintf("no topic named %s-*-changelog: the application has no logged state store, "+
			"or the principal may not describe its topics", app))
		return nil
	}
	starts, ends, err := listOffsets(ctx, adm, names)
	if err != nil {
		return err
	}
	r.endsListed = time.Now()
	sizes, sizeErr := diskSizes(ctx, adm, names, td)
	if sizeErr != nil {
		r.Unseen = append(r.Unseen, "bytes on disk: "+sizeErr.Error())
	}
	for _, name := range names {
		c := changelogOf(name, len(td[name].Partitions), starts, ends, sizes)
		readShape(ctx, cfg, &c, o)
		r.Changelogs = append(r.Changelogs, c)
	}
	return nil
}

// changelogNames are app's changelog topics among td, APP-*-changelog,
// sorted.
func changelogNames(td kadm.TopicDetails, app string) []string {
	var names []string
	for _, name := range td.Names() {
		if strings.HasPrefix(name, app+"-") && strings.HasSuffix(name, "-changelog") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// errNoSuchChangelog is a --changelog that names no topic: bad input,
// not something unseen.
var errNoSuchChangelog = errors.New("no such topic (or the principal may not describe it)")

// namedChangelogs are the topics --changelog named, sorted, each one a
// topic of td.
func namedChangelogs(td kadm.TopicDetails, named []string) ([]string, error) {
	var names []string
	for _, n := range named {
		if _, ok := td[n]; !ok {
			return nil, fmt.Errorf("--changelog %s: %w", n, errNoSuchChangelog)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// ambiguousNames maps each of names (app's changelogs by their prefix)
// that another application could own to that application's id: a group
// G other than app exists whose id extends app (APP-X) and the topic is
// named G-*-changelog, so it may be G's store rather than app's store
// X-*. The groups are listed with ListGroups; when they cannot be, no
// name is taken as ambiguous.
func ambiguousNames(ctx context.Context, adm *kadm.Client, app string, names []string) map[string]string {
	ls, err := adm.ListGroups(ctx)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, g := range ls.Groups() {
		if g == app || !strings.HasPrefix(g, app+"-") {
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(n, g+"-") && len(g) > len(out[n]) {
				out[n] = g
			}
		}
	}
	return out
}

// ambiguousNote says what audit did with changelogs another application
// may own and how to decide: it takes the topics, then the groups.
const ambiguousNote = "changelog topic(s) %s may belong to application(s) %s (a group of that id exists; its id extends this one's, " +
	"so its topics share this application's prefix): not counted, and the figures may leave out state; name the application's " +
	"changelogs with --changelog (repeatable) to decide"

// resolveAmbiguous decides each changelog another application may own
// (r.ambiguous) by the group's topology where the streams protocol names
// it: a changelog it names is the application's, one it does not name is
// not, and is dropped. The rest are dropped from the figures, listed in
// r.Ambiguous, and make the answer inconclusive.
func resolveAmbiguous(r *Report) {
	if len(r.ambiguous) == 0 {
		return
	}
	var kept []Changelog
	var topics, owners []string
	for _, c := range r.Changelogs {
		owner, ok := r.ambiguous[c.Topic]
		switch {
		case !ok || r.topologyRead && c.Subtopology != nil:
			kept = append(kept, c)
		case r.topologyRead:
			r.Assumptions = append(r.Assumptions, fmt.Sprintf("%s is not a changelog of the group's topology (StreamsGroupDescribe): "+
				"left out as application %s's", c.Topic, owner))
		default:
			topics = append(topics, c.Topic)
			if !slices.Contains(owners, owner) {
				owners = append(owners, owner)
			}
		}
	}
	r.Changelogs = append([]Changelog{}, kept...)
	if len(topics) > 0 {
		r.Ambiguous = topics
		r.Inconclusive = fmt.Sprintf(ambiguousNote, strings.Join(topics, ", "), strings.Join(owners, ", "))
	}
}

// readSourceTopics reads the offsets and sizes of the topics the group's
// members' active tasks read (their assigned partitions), changelogs and
// repartition topics aside, into r.SourceTopics: a store logged to its
// source topic (a source table, topology.optimization=all or
// reuse.ktable.source.topics) has no changelog and restores from it.
func readSourceTopics(ctx context.Context, adm *kadm.Client, r *Report) error {
	if r.Group == nil {
		return nil
	}
	var names []string
	for _, m := range r.Group.Members {
		if m.Assignment == nil {
			continue
		}
		for _, ts := range m.Assignment.Sources {
			for _, t := range ts {
				if !slices.Contains(names, t) && !strings.HasSuffix(t, "-repartition") && !strings.HasSuffix(t, "-changelog") {
					names = append(names, t)
				}
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	td, err := adm.ListTopics(ctx, names...)
	if err == nil {
		err = td.Error()
	}
	if err != nil {
		return fmt.Errorf("describing them: %w", err)
	}
	starts, ends, err := listOffsets(ctx, adm, names)
	if err != nil {
		return err
	}
	sizes, _ := diskSizes(ctx, adm, names, td)
	for _, name := range names {
		r.SourceTopics = append(r.SourceTopics, changelogOf(name, len(td[name].Partitions), starts, ends, sizes))
	}
	return nil
}

// listOffsets lists the topics' log start and end offsets.
func listOffsets(ctx context.Context, adm *kadm.Client, names []string) (starts, ends kadm.ListedOffsets, err error) {
	starts, err = adm.ListStartOffsets(ctx, names...)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("log start offsets: %w", err)
	}
	ends, err = adm.ListEndOffsets(ctx, names...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("end offsets: %w", err)
	}
	return starts, ends, nil
}

// changelogOf is the changelog name of n partitions: its records between
// the start and end offsets listed and, when the brokers reported every
// partition's, its bytes on disk.
func changelogOf(name string, n int, starts, ends kadm.ListedOffsets, sizes map[string][]int64) Changelog {
	c := Changelog{Topic: name, Partitions: n, PartitionRecords: make([]int64, n), EndOffsets: make([]int64, n)}
	for p := range int32(n) {
		s, _ := starts.Lookup(name, p)
		e, _ := ends.Lookup(name, p)
		c.PartitionRecords[p] = max(0, e.Offset-s.Offset)
		c.EndOffsets[p] = e.Offset
		c.Records += c.PartitionRecords[p]
	}
	if ps, ok := sizes[name]; ok && len(ps) == n {
		var total int64
		for _, b := range ps {
			total += b
		}
		c.DiskBytes, c.PartitionDiskBytes = &total, ps
	}
	return c
}

// prefixShapeNote says a shape was read from a prefix (--max-read) and
// what that understates; it takes the offsets read and the topic's.
const prefixShapeNote = "read the first %d of %d offsets (--max-read): a prefix holds the oldest, most compacted records, " +
	"so its records per live key understate the topic's"

// readShape reads c's shape, within o.MaxRead, without a group, or says
// in its ShapeNote why it did not or what it read.
func readShape(ctx context.Context, cfg cluster.Config, c *Changelog, o ReadOptions) {
	switch {
	case o.MaxRead == 0:
		c.ShapeNote = "not read (--max-read 0)"
	case c.Records == 0:
		c.ShapeNote = "empty"
	default:
		so := topicshape.Options{}
		if o.MaxRead > 0 {
			so.MaxOffsets = o.MaxRead
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "reading %s (%d offsets) for its shape, without a group\n", c.Topic, c.Records)
		}
		s, err := topicshape.Read(ctx, cfg, c.Topic, so)
		switch {
		case err != nil:
			c.ShapeNote = "shape not read: " + err.Error()
		case s.PrefixOf > 0:
			c.Shape = &s
			c.ShapeNote = fmt.Sprintf(prefixShapeNote, s.Offsets, s.PrefixOf)
		default:
			c.Shape = &s
		}
	}
}

// diskSizes is each topic's partitions' log sizes, the largest replica's,
// from DescribeLogDirs.
func diskSizes(ctx context.Context, adm *kadm.Client, names []string, td kadm.TopicDetails) (map[string][]int64, error) {
	set := kadm.TopicsSet{}
	for _, n := range names {
		for p := range td[n].Partitions {
			set.Add(n, p)
		}
	}
	dirs, err := adm.DescribeAllLogDirs(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("DescribeLogDirs: %w", err)
	}
	out := map[string][]int64{}
	seen := map[string]int{}
	var dirErr error
	dirs.Each(func(d kadm.DescribedLogDir) {
		if d.Err != nil {
			dirErr = fmt.Errorf("broker %d dir %s: %w", d.Broker, d.Dir, d.Err)
			return
		}
		for topic, ps := range d.Topics {
			if out[topic] == nil {
				out[topic] = make([]int64, len(td[topic].Partitions))
			}
			for p, dp := range ps {
				if int(p) < len(out[topic]) {
					if dp.Size > out[topic][p] {
						out[topic][p] = dp.Size
					}
					seen[fmt.Sprintf("%s/%d", topic, p)]++
				}
			}
		}
	})
	for _, n := range names {
		for p := range td[n].Partitions {
			if seen[fmt.Sprintf("%s/%d", n, p)] == 0 {
				delete(out, n)
				if dirErr == nil {
					dirErr = fmt.Errorf("the brokers reported no log size for %s partition %d", n, p)
				}
			}
		}
	}
	return out, dirErr
}

// consumerProtocolUnseen says why a group on the consumer protocol
// (KIP-848) cannot be audited.
const consumerProtocolUnseen = "the group is on the consumer protocol (KIP-848), which DescribeGroups does not describe " +
	"and Kafka Streams does not use: its members, tasks and lags cannot be seen"

// readGroup describes the group and decodes its members' userdata.
func readGroup(ctx context.Context, cl *kgo.Client, adm *kadm.Client, app string, r *Report) error {
	gs, err := adm.DescribeGroups(ctx, app)
	if err != nil && len(gs) == 0 {
		return fmt.Errorf("DescribeGroups: %w", err)
	}
	d, ok := gs[app]
	if !ok {
		return errors.New("not in the DescribeGroups answer")
	}
	groupType := ""
	if ls, lerr := adm.ListGroups(ctx); lerr == nil {
		groupType = ls[app].GroupType
	}
	if d.Err != nil {
		if errors.Is(d.Err, kerr.GroupIDNotFound) || errors.Is(d.Err, kerr.GroupAuthorizationFailed) {
			switch groupType {
			case "streams":
				return readStreamsGroup(ctx, cl, adm, app, r)
			case "consumer":
				return errors.New(consumerProtocolUnseen)
			}
		}
		return fmt.Errorf("DescribeGroups: %w", d.Err)
	}
	g := &Group{State: d.State, ProtocolType: d.ProtocolType, Protocol: d.Protocol, Type: groupType}
	r.Group = g
	switch {
	case groupType == "streams":
		r.Group = nil
		return readStreamsGroup(ctx, cl, adm, app, r)
	case d.State == "Dead" || len(d.Members) == 0:
		return fmt.Errorf("the group has no members (state %s): no instance runs, so no assignment can be seen", d.State)
	case d.ProtocolType != "consumer":
		return fmt.Errorf("the group's protocol type is %q, not a Kafka Streams (consumer) group", d.ProtocolType)
	case d.Protocol != "stream":
		r.Unseen = append(r.Unseen, fmt.Sprintf("the group's assignor is %q, not Kafka Streams' \"stream\": its userdata may not be Kafka Streams'", d.Protocol))
	}
	var errs []string
	for _, m := range d.Members {
		mem := decodeMember(m, g)
		if mem.Error != "" {
			errs = append(errs, fmt.Sprintf("member %s (%s): %s", m.MemberID, m.ClientID, mem.Error))
		}
		g.Members = append(g.Members, mem)
	}
	slices.Sort(g.AssignmentVersions)
	slices.Sort(g.SubscriptionVersions)
	if len(errs) > 0 {
		r.Unseen = append(r.Unseen, errs...)
	}
	if d.State != "Stable" {
		r.Unseen = append(r.Unseen, fmt.Sprintf("the group is %s, not Stable: the assignment seen may be about to change", d.State))
	}
	return nil
}

// decodeMember is the group member m with its subscription and assignment
// decoded as Kafka Streams' userdata, the versions met added to g's; its
// Error says what could not be decoded.
func decodeMember(m kadm.DescribedGroupMember, g *Group) Member {
	mem := Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
	if m.InstanceID != nil {
		mem.InstanceID = *m.InstanceID
	}
	var merr []string
	if md, ok := m.Join.AsConsumer(); !ok {
		merr = append(merr, "its member metadata is not a consumer subscription")
	} else if s, err := DecodeSubscription(md.UserData); err != nil {
		merr = append(merr, err.Error())
	} else {
		mem.Subscription, mem.ProcessID = s, s.ProcessIDString()
		if !slices.Contains(g.SubscriptionVersions, s.Version) {
			g.SubscriptionVersions = append(g.SubscriptionVersions, s.Version)
		}
	}
	if as, ok := m.Assigned.AsConsumer(); !ok {
		merr = append(merr, "its assignment is not a consumer assignment (a rebalance in progress?)")
	} else if a, err := DecodeAssignment(as.UserData); err != nil {
		merr = append(merr, err.Error())
	} else {
		var tps []TopicPartition
		for _, t := range as.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, TopicPartition{Topic: t.Topic, Partition: p})
			}
		}
		a.SetSources(tps)
		mem.Assignment = a
		if !slices.Contains(g.AssignmentVersions, a.Version) {
			g.AssignmentVersions = append(g.AssignmentVersions, a.Version)
		}
	}
	if len(merr) > 0 {
		mem.Error = strings.Join(merr, "; ")
	}
	return mem
}
