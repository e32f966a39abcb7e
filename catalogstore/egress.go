package catalogstore

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// EgressRefusal is one source workspace that refuses a copy: its
// egress_protection is on (or cannot be read, which reads as on).
type EgressRefusal struct {
	Workspace string
	// Sources are the datasets of Workspace the operation reads.
	Sources []Ident
	// Reason is set when the workspace could not be read (missing or
	// unreadable), which fails closed.
	Reason string
}

// EgressError is a copy refused by egress protection. It names every
// refusing source workspace, each with the statement that lifts the guard.
// It matches ErrEgressRestricted.
type EgressError struct {
	// Operation is what was attempted, e.g. "create materialized view
	// sales.mart.copy".
	Operation string
	// Destination is the workspace the data would be copied into.
	Destination string
	Refused     []EgressRefusal
}

func (e *EgressError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v: %s would copy data out of ", ErrEgressRestricted, e.Operation)
	for i, r := range e.Refused {
		if i > 0 {
			sb.WriteString("; and out of ")
		}
		names := make([]string, len(r.Sources))
		for j, s := range r.Sources {
			names[j] = s.String()
		}
		fmt.Fprintf(&sb, "workspace %q (%s)", r.Workspace, strings.Join(names, ", "))
		if r.Reason != "" {
			fmt.Fprintf(&sb, ", whose egress_protection reads as ON because %s", r.Reason)
		}
	}
	fmt.Fprintf(&sb, " into workspace %q; the source workspace's owner can allow it with ", e.Destination)
	for i, r := range e.Refused {
		if i > 0 {
			sb.WriteString(" and ")
		}
		fmt.Fprintf(&sb, "ALTER WORKSPACE %s SET egress_protection TO OFF", r.Workspace)
	}
	return sb.String()
}

// Unwrap makes an EgressError match ErrEgressRestricted.
func (e *EgressError) Unwrap() error { return ErrEgressRestricted }

// IsEgressRestricted reports whether copies of workspace ws's data into
// another workspace are refused. It fails closed: a missing workspace, an
// unreadable one, and any value but a real false read as restricted.
func (c *Catalog) IsEgressRestricted(ctx context.Context, ws string) bool {
	restricted, _ := c.egressState(ctx, ws)
	return restricted
}

// egressState is IsEgressRestricted with the reason a workspace that could
// not be read is restricted.
func (c *Catalog) egressState(ctx context.Context, ws string) (bool, string) {
	w, err := c.Workspace(ctx, ws)
	if err != nil {
		return true, fmt.Sprintf("it cannot be read (%v)", err)
	}
	return w.EgressRestricted(), ""
}

// EnforceEgress is the one egress gate, shared by materialized-view
// creation, every refresh, CTAS and INSERT ... SELECT. sources are the
// datasets the operation reads; destination is the workspace it writes.
// The source workspace decides: a source in the destination workspace is
// never egress, whatever its flag says. It returns nil, or an *EgressError
// (ErrEgressRestricted) listing every refusing source workspace with the
// remediation statement.
func EnforceEgress(ctx context.Context, c *Catalog, sources []Ident, destination, operation string) error {
	byWS := map[string][]Ident{}
	for _, s := range sources {
		if s.Workspace == destination {
			continue
		}
		if !containsIdent(byWS[s.Workspace], s) {
			byWS[s.Workspace] = append(byWS[s.Workspace], s)
		}
	}
	if len(byWS) == 0 {
		return nil
	}
	wss := make([]string, 0, len(byWS))
	for ws := range byWS {
		wss = append(wss, ws)
	}
	sort.Strings(wss)
	e := &EgressError{Operation: operation, Destination: destination}
	for _, ws := range wss {
		if restricted, reason := c.egressState(ctx, ws); restricted {
			srcs := byWS[ws]
			sort.Slice(srcs, func(i, j int) bool { return srcs[i].String() < srcs[j].String() })
			e.Refused = append(e.Refused, EgressRefusal{Workspace: ws, Sources: srcs, Reason: reason})
		}
	}
	if len(e.Refused) == 0 {
		return nil
	}
	return e
}

func containsIdent(ids []Ident, id Ident) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
