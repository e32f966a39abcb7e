package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Workspace properties with guard semantics.
const (
	PropEgressProtection   = "egress_protection"
	PropDeletionProtection = "deletion_protection"
)

// Workspace is a workspace's $properties document.
type Workspace struct {
	Name       string         `json:"name"`
	Author     string         `json:"author"`
	CreatedAt  time.Time      `json:"created-at"`
	Properties map[string]any `json:"properties"`
}

// guardIsOn is the fail-closed tri-state: a guard is on unless its value is
// the real boolean false. Absent, null, a string ("OFF" included) or any
// other value reads as on.
func guardIsOn(props map[string]any, key string) bool {
	v, ok := props[key]
	if !ok {
		return true
	}
	b, isBool := v.(bool)
	return !isBool || b
}

// EgressRestricted reports whether copies of this workspace's data into
// another workspace are refused.
func (w *Workspace) EgressRestricted() bool { return guardIsOn(w.Properties, PropEgressProtection) }

// DeletionProtected reports whether the workspace refuses DROP WORKSPACE.
func (w *Workspace) DeletionProtected() bool { return guardIsOn(w.Properties, PropDeletionProtection) }

// CreateWorkspace creates a workspace. Its existence is its $properties
// document. ErrWorkspaceExists if it exists; ErrBadIdentifier for a bad
// name.
func (c *Catalog) CreateWorkspace(ctx context.Context, name, author string) (*Workspace, error) {
	if err := CheckWorkspaceName(name); err != nil {
		return nil, err
	}
	w := &Workspace{Name: name, Author: author, CreatedAt: c.now(), Properties: map[string]any{}}
	data, err := meta.Encode(w)
	if err != nil {
		return nil, err
	}
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		return tx.Create(workspacePath(name), data)
	})
	if errors.Is(err, meta.ErrExists) {
		return nil, fmt.Errorf("%w: %q", ErrWorkspaceExists, name)
	}
	if err != nil {
		return nil, fmt.Errorf("create workspace %s: %w", name, err)
	}
	c.audit(ctx, "create", "workspace", name, "", name, author)
	return w, nil
}

// Workspace loads a workspace. It never creates one: a workspace that does
// not exist is ErrWorkspaceNotFound.
func (c *Catalog) Workspace(ctx context.Context, name string) (*Workspace, error) {
	if err := CheckWorkspaceName(name); err != nil {
		return nil, err
	}
	d, err := c.meta.Get(ctx, workspacePath(name))
	if errors.Is(err, meta.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q (create it with CREATE WORKSPACE %s)", ErrWorkspaceNotFound, name, name)
	}
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", name, err)
	}
	var w Workspace
	if err := d.Decode(&w); err != nil {
		return nil, err
	}
	w.Name = name
	if w.Properties == nil {
		w.Properties = map[string]any{}
	}
	return &w, nil
}

// OpenWorkspace loads a workspace, creating it first when createIfMissing is
// set (the explicit create_if_missing option).
func (c *Catalog) OpenWorkspace(ctx context.Context, name, author string, createIfMissing bool) (*Workspace, error) {
	w, err := c.Workspace(ctx, name)
	if err == nil || !createIfMissing || !errors.Is(err, ErrWorkspaceNotFound) {
		return w, err
	}
	w, err = c.CreateWorkspace(ctx, name, author)
	if errors.Is(err, ErrWorkspaceExists) {
		return c.Workspace(ctx, name)
	}
	return w, err
}

// ListWorkspaces returns every workspace, sorted by name.
func (c *Catalog) ListWorkspaces(ctx context.Context) ([]Workspace, error) {
	names, err := c.meta.Collections(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	var out []Workspace
	for _, n := range names {
		if CheckWorkspaceName(n) != nil {
			continue // jobs, audit and other top-level collections
		}
		w, err := c.Workspace(ctx, n)
		if errors.Is(err, ErrWorkspaceNotFound) {
			continue // a collection left without its $properties
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SetWorkspaceProperty sets a workspace property. The guards take booleans
// only; ErrUnknownProperty for any other key, ErrBadValue for a non-boolean.
func (c *Catalog) SetWorkspaceProperty(ctx context.Context, ws, key string, value any, author string) error {
	key = strings.ToLower(key)
	switch key {
	case PropEgressProtection, PropDeletionProtection:
		if _, ok := value.(bool); !ok {
			return fmt.Errorf("%w: %s takes ON or OFF, not %v", ErrBadValue, key, value)
		}
	default:
		return fmt.Errorf("%w: workspace property %q (known: %s, %s)", ErrUnknownProperty, key, PropEgressProtection, PropDeletionProtection)
	}
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		d, err := tx.Get(workspacePath(ws))
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %q", ErrWorkspaceNotFound, ws)
		}
		if err != nil {
			return err
		}
		props, _ := d.Data["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		props[key] = value
		return tx.Merge(workspacePath(ws), map[string]any{"properties": props})
	})
	if err != nil {
		return fmt.Errorf("set %s on workspace %s: %w", key, ws, err)
	}
	c.audit(ctx, "alter", "workspace", ws, "", ws, author)
	return nil
}

// DropWorkspace drops a workspace and everything in it. Deletion protection
// makes it a two-step act: ErrDeletionProtected until deletion_protection
// is explicitly OFF. A workspace that still has collections is dropped
// only with cascade (ErrWorkspaceNotEmpty otherwise, naming them), as
// DROP SCHEMA … CASCADE: a single statement never silently takes data.
// Materialized views go first, then datasets and views, then collections,
// then the workspace's storage.
func (c *Catalog) DropWorkspace(ctx context.Context, name, author string, cascade bool) error {
	w, err := c.Workspace(ctx, name)
	if err != nil {
		return err
	}
	if w.DeletionProtected() {
		return fmt.Errorf("%w: workspace %q cannot be dropped; run ALTER WORKSPACE %s SET deletion_protection TO OFF first", ErrDeletionProtected, name, name)
	}
	colls, err := c.ListCollections(ctx, name)
	if err != nil {
		return err
	}
	if len(colls) > 0 && !cascade {
		names := make([]string, len(colls))
		for i, coll := range colls {
			names[i] = coll.Name
		}
		return fmt.Errorf("%w: workspace %q holds collections %s; drop them first or use DROP WORKSPACE %s CASCADE",
			ErrWorkspaceNotEmpty, name, strings.Join(names, ", "), name)
	}
	for _, coll := range colls {
		if coll.LockedBy != "" {
			return fmt.Errorf("%w: collection %s.%s is locked by %s", ErrLocked, name, coll.Name, coll.LockedBy)
		}
	}
	// Files add_files registered in place stay: lakesql did not write them.
	keep, err := c.workspaceExternalFiles(ctx, name, colls)
	if err != nil {
		return fmt.Errorf("drop workspace %s: %w", name, err)
	}
	if err := c.dropWorkspaceMaterializedViews(ctx, name, colls, author); err != nil {
		return err
	}
	for _, coll := range colls {
		if err := c.DropCollection(ctx, name, coll.Name, author, true); err != nil {
			return err
		}
	}
	// What is left are the workspace's own documents: $policies, then
	// $properties last, so a crash part-way leaves a workspace that still
	// exists and can be dropped again.
	docs, err := c.meta.List(ctx, name)
	if err != nil {
		return fmt.Errorf("drop workspace %s: %w", name, err)
	}
	for _, d := range docs {
		if d.Path == workspacePath(name) {
			continue
		}
		if err := meta.DeleteTree(ctx, c.meta, d.Path); err != nil {
			return fmt.Errorf("drop workspace %s: %w", name, err)
		}
	}
	if err := meta.DeleteTree(ctx, c.meta, workspacePath(name)); err != nil {
		return fmt.Errorf("drop workspace %s: %w", name, err)
	}
	if err := c.deleteLocations(ctx, name, keep); err != nil {
		c.log.Warn("drop workspace: storage not fully removed", "workspace", name, "err", err)
	}
	c.audit(ctx, "drop", "workspace", name, "", name, author)
	return nil
}

// deleteLocations removes what is left of the workspace's dataset
// locations (files of a drop that crashed part-way), but no other object
// under the workspace's prefix: those lakesql did not write, and keep.
func (c *Catalog) deleteLocations(ctx context.Context, ws string, keep map[string]bool) error {
	objs, err := c.blob.List(ctx, ws+"/")
	if err != nil {
		return err
	}
	var first error
	for _, o := range objs {
		if keep[o.Key] || !InDatasetLocation(o.Key) {
			continue
		}
		if err := c.blob.Delete(ctx, o.Key); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// InDatasetLocation reports whether key lies in a dataset location,
// {ws}/{collection}/{dataset}-{uuid}/…: a folder lakesql manages.
func InDatasetLocation(key string) bool {
	segs := strings.SplitN(key, "/", 4)
	if len(segs) < 4 {
		return false
	}
	d := segs[2]
	if len(d) < 38 || d[len(d)-37] != '-' {
		return false
	}
	_, err := uuid.Parse(d[len(d)-36:])
	return err == nil
}

// deletePrefix removes every object under a key prefix but those in keep.
func (c *Catalog) deletePrefix(ctx context.Context, prefix string, keep map[string]bool) error {
	objs, err := c.blob.List(ctx, prefix)
	if err != nil {
		return err
	}
	var first error
	for _, o := range objs {
		if keep[o.Key] {
			continue
		}
		if err := c.blob.Delete(ctx, o.Key); err != nil && first == nil {
			first = err
		}
	}
	return first
}
