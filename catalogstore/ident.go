package catalogstore

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	identRe     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,127}$`)
	workspaceRe = regexp.MustCompile(`^[a-z_][A-Za-z0-9_-]{0,62}$`)
)

// ReservedColumnPrefix starts column names lakesql keeps for itself.
const ReservedColumnPrefix = "_lake"

// CheckName validates a collection, dataset, view or column name.
func CheckName(kind, name string) error {
	if !identRe.MatchString(name) {
		return fmt.Errorf("%w: %s name %q must match %s (a letter or _, then letters, digits, _ or -, at most 128)",
			ErrBadIdentifier, kind, name, identRe.String())
	}
	return nil
}

// CheckWorkspaceName validates a workspace name: an identifier that starts
// lower-case, at most 63 characters.
func CheckWorkspaceName(name string) error {
	if !workspaceRe.MatchString(name) {
		return fmt.Errorf("%w: workspace name %q must start with a lower-case letter or _, then letters, digits, _ or -, at most 63",
			ErrBadIdentifier, name)
	}
	return nil
}

// CheckCollectionName validates a collection name (an identifier without
// dots, which the identifier rule already excludes).
func CheckCollectionName(name string) error { return CheckName("collection", name) }

// CheckColumnName validates a column name and refuses the reserved prefix.
func CheckColumnName(name string) error {
	if err := CheckName("column", name); err != nil {
		return err
	}
	if strings.HasPrefix(strings.ToLower(name), ReservedColumnPrefix) {
		return fmt.Errorf("%w: column name %q starts with %q, which is reserved for lakesql", ErrBadIdentifier, name, ReservedColumnPrefix)
	}
	return nil
}

// Ident names a dataset, materialized view or view.
type Ident struct {
	Workspace  string
	Collection string
	Name       string
}

func (i Ident) String() string { return i.Workspace + "." + i.Collection + "." + i.Name }

// Short is collection.name, how SQL inside one workspace names it.
func (i Ident) Short() string { return i.Collection + "." + i.Name }

// Check validates every part.
func (i Ident) Check(kind string) error {
	if err := CheckWorkspaceName(i.Workspace); err != nil {
		return err
	}
	if err := CheckCollectionName(i.Collection); err != nil {
		return err
	}
	return CheckName(kind, i.Name)
}

// ParseIdent parses "collection.name" or "workspace.collection.name"
// relative to workspace ws.
func ParseIdent(ws, s string) (Ident, error) {
	parts := strings.Split(strings.Trim(s, "`"), ".")
	for i := range parts {
		parts[i] = strings.Trim(parts[i], "`")
	}
	switch len(parts) {
	case 2:
		return Ident{Workspace: ws, Collection: parts[0], Name: parts[1]}, nil
	case 3:
		return Ident{Workspace: parts[0], Collection: parts[1], Name: parts[2]}, nil
	default:
		return Ident{}, fmt.Errorf("%w: %q: name a table as collection.table or workspace.collection.table", ErrBadIdentifier, s)
	}
}
