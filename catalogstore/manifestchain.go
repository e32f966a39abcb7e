package catalogstore

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// Delta manifests. Writing a consolidated manifest (every live file) per
// commit makes a table's metadata grow with commits × files: 810 commits on
// a 27 MB table left 110 MB of manifests. Instead a commit writes a delta
// manifest (its added entries and removed paths; manifest/delta.go) over
// its parent's chain, and the snapshot document records the base and the
// chain: manifest-base (the base), manifest-bytes (its size),
// manifest-deltas (name, entries and bytes of each delta, oldest first;
// names are relative to the base's folder, which is the dataset's
// metadata/ folder, to keep the document small) and manifest-path (the
// last delta, so that a binary predating deltas fails to read it rather
// than answer from the base alone). A snapshot with a base alone has
// manifest-path and manifest-bytes only.
//
// Chains stay short by merging, like a binary counter: the new delta
// absorbs each trailing delta with fewer than twice its entries, so a
// chain holds at most about log2(entries since the base) deltas and each
// entry is rewritten O(log) times before the next base. A commit writes a
// fresh base instead when the chain would exceed ChainPolicy.MaxDeltas
// deltas or its bytes would exceed ChainPolicy.MaxPercent of the base's:
// a cold reader then reads at most the base, 25% more bytes and 16 more
// objects by default, and the base is rewritten only after deltas worth a
// quarter of it were written, so a commit costs O(change × log) bytes
// amortised instead of O(table). A small table's base is smaller than a
// delta's fixed Parquet overhead allows for, so it keeps writing bases, as
// before. Commits that rebuild the list (ManifestFiles: rollback,
// statistics refresh, repairs) or replace it (ReplaceAll) write a base;
// snapshots written before deltas (no manifest-bytes) are consolidated by
// their first child.

// ChainPolicy bounds delta chains. The zero value uses the defaults.
type ChainPolicy struct {
	// Off makes every commit write a consolidated manifest, as before
	// deltas (chains already written are still read).
	Off bool
	// MaxDeltas is the most deltas a snapshot's chain holds (default 16).
	MaxDeltas int
	// MaxPercent bounds the chain's bytes as a percentage of its base's
	// (default 25).
	MaxPercent int64
}

const (
	defaultMaxDeltas  = 16
	defaultMaxPercent = 25
)

func (p ChainPolicy) withDefaults() ChainPolicy {
	if p.MaxDeltas <= 0 {
		p.MaxDeltas = defaultMaxDeltas
	}
	if p.MaxPercent <= 0 {
		p.MaxPercent = defaultMaxPercent
	}
	return p
}

// DeltaLink is one delta of a snapshot's chain, as its document lists it.
type DeltaLink struct {
	Name    string `json:"name"`    // object name, in the base's folder
	Entries int64  `json:"entries"` // added entries plus removed paths
	Bytes   int64  `json:"bytes"`
}

// ManifestChain returns the objects holding the snapshot's live list: its
// base manifest and its deltas, as keys.
func (s *Snapshot) ManifestChain() manifest.Chain {
	if len(s.ManifestDeltas) == 0 {
		return manifest.Chain{Base: s.ManifestPath}
	}
	ch := manifest.Chain{Base: s.ManifestBase}
	dir := path.Dir(s.ManifestBase)
	for _, l := range s.ManifestDeltas {
		ch.Deltas = append(ch.Deltas, dir+"/"+l.Name)
	}
	return ch
}

// ManifestKey identifies the snapshot's live list (its last delta, or its
// base): equal keys, equal lists. Caches keyed by manifest use it.
func (s *Snapshot) ManifestKey() string { return s.ManifestChain().Key() }

// CheckManifestChain reports a snapshot document whose manifest fields disagree:
// deltas without a base, or a manifest-path that is not the chain's last
// object. Such a document is never read as a (wrong) list.
func (s *Snapshot) CheckManifestChain() error {
	switch {
	case len(s.ManifestDeltas) > 0 && s.ManifestBase == "":
		return fmt.Errorf("snapshot %d lists %d delta manifests but no base", s.ID, len(s.ManifestDeltas))
	case s.ManifestPath != s.ManifestKey():
		return fmt.Errorf("snapshot %d: manifest-path %s is not the last object of its chain (%s)", s.ID, s.ManifestPath, s.ManifestKey())
	}
	return nil
}

// liveFiles reads snap's live list through the manifest cache. A list that
// cannot be read is an alertable ErrManifestUnreadable naming the object at
// fault; it is never treated as empty. A read cut short by ctx is ctx's
// error.
func (c *Catalog) liveFiles(ctx context.Context, ds *Dataset, snap *Snapshot) ([]manifest.DataFile, error) {
	err := snap.CheckManifestChain()
	var files []manifest.DataFile
	if err == nil {
		files, err = c.manifests.GetChain(ctx, c.blob, snap.ManifestChain())
	}
	if err != nil && ctx.Err() != nil {
		// The statement was killed while it read (KILL QUERY): the
		// manifest is not damaged, and no alert is due.
		return nil, ctx.Err()
	}
	if err != nil {
		key := snap.ManifestPath
		if le, ok := manifest.IsLinkError(err); ok {
			key = le.Key
		}
		return nil, MarkAlertable(fmt.Errorf("%w: %s of %s: %v", ErrManifestUnreadable, key, ds.Ident().Short(), err),
			SeverityCritical, "manifest-unreadable:"+ds.UUID, map[string]string{"dataset": ds.Ident().String()})
	}
	return files, nil
}

// writeManifest writes the metadata of snapshot snap, whose live list is
// live: a delta over parent's chain holding own (the commit's change),
// when own is not nil and the policy allows, else a fresh base. It sets
// snap's manifest fields and returns the key it wrote.
func (c *Catalog) writeManifest(ctx context.Context, ds *Dataset, snap, parent *Snapshot, live []manifest.DataFile, own *manifest.Delta) (string, error) {
	if own != nil && parent != nil && !c.opts.Chain.Off {
		key, ok, err := c.writeDelta(ctx, ds, snap, parent, own)
		if err != nil || ok {
			return key, err
		}
	}
	key := fmt.Sprintf("%s/metadata/manifest-%d-%s.parquet", ds.Location, snap.ID, uuid.NewString()[:8])
	n, err := manifest.Write(ctx, c.blob, key, live)
	if err != nil {
		return "", err
	}
	snap.ManifestPath, snap.ManifestBase, snap.ManifestBytes, snap.ManifestDeltas = key, "", n, nil
	return key, nil
}

// writeDelta writes own, merged with the trailing deltas it absorbs, as
// the last delta of parent's chain, unless the chain would outgrow the
// policy (ok false: write a base).
func (c *Catalog) writeDelta(ctx context.Context, ds *Dataset, snap, parent *Snapshot, own *manifest.Delta) (key string, ok bool, err error) {
	dir := ds.Location + "/metadata"
	pch := parent.ManifestChain()
	if parent.ManifestBytes <= 0 || path.Dir(pch.Base) != dir {
		// Written before deltas (base size unknown), or not in this
		// incarnation's folder: start a chain from a fresh base.
		return "", false, nil
	}
	pol := c.opts.Chain.withDefaults()
	links := parent.ManifestDeltas
	k := mergeCount(links, int64(own.Entries()))
	kept := links[:len(links)-k]
	d, err := c.absorb(ctx, pch, len(kept), own)
	if err != nil {
		// The parent's list was read (it is what live came from); a
		// trailing delta that cannot be read again only costs a base.
		c.log.Warn("delta chain unreadable; writing a consolidated manifest", "dataset", ds.Ident().String(), "error", err)
		return "", false, nil
	}
	d.Seq, d.Prev = len(kept)+1, path.Base(pch.Base)
	if len(kept) > 0 {
		d.Prev = kept[len(kept)-1].Name
	}
	data, err := manifest.EncodeDelta(d)
	if err != nil {
		return "", false, err
	}
	chainBytes := int64(len(data))
	for _, l := range kept {
		chainBytes += l.Bytes
	}
	if len(kept)+1 > pol.MaxDeltas || chainBytes*100/pol.MaxPercent > parent.ManifestBytes {
		return "", false, nil
	}
	name := fmt.Sprintf("delta-%d-%s.parquet", snap.ID, uuid.NewString()[:8])
	key = dir + "/" + name
	if err := c.blob.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{IfNotExists: true}); err != nil {
		return "", false, fmt.Errorf("write delta manifest %s: %w", key, err)
	}
	snap.ManifestPath, snap.ManifestBase, snap.ManifestBytes = key, pch.Base, parent.ManifestBytes
	snap.ManifestDeltas = append(slices.Clip(kept), DeltaLink{Name: name, Entries: int64(d.Entries()), Bytes: int64(len(data))})
	return key, true, nil
}

// mergeCount returns how many trailing links a new delta of n entries
// absorbs: each with fewer than twice the entries merged so far.
func mergeCount(links []DeltaLink, n int64) int {
	k := 0
	for k < len(links) && links[len(links)-1-k].Entries < 2*n {
		n += links[len(links)-1-k].Entries
		k++
	}
	return k
}

// absorb returns own merged after the deltas of ch from position from (from
// 0) on, read through the manifest cache.
func (c *Catalog) absorb(ctx context.Context, ch manifest.Chain, from int, own *manifest.Delta) (*manifest.Delta, error) {
	if from == len(ch.Deltas) {
		return own, nil
	}
	var merged *manifest.Delta
	for _, key := range ch.Deltas[from:] {
		d, err := c.manifests.GetDelta(ctx, c.blob, key)
		if err != nil {
			return nil, err
		}
		if merged == nil {
			merged = d
		} else {
			merged = manifest.Merge(merged, d)
		}
	}
	return manifest.Merge(merged, own), nil
}
