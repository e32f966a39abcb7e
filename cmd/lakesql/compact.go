package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
)

// newCompactCmd is `lakesql compact c.t`: one compaction pass, with a
// progress bar on stderr.
func newCompactCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var dryRun bool
	var rule string
	cmd := &cobra.Command{
		Use:   "compact COLLECTION.TABLE",
		Short: "Merge a dataset's small files (one pass: read, select, execute, commit)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			strategy, err := maintenance.ParseStrategy(rule)
			if err != nil {
				return fmt.Errorf("--rule: %w", err)
			}
			e, err := g.open(ctx, stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			id, err := catalogstore.ParseIdent(e.Workspace(), args[0])
			if err != nil {
				return err
			}
			ds, err := e.Catalog().Dataset(ctx, id)
			if errors.Is(err, catalogstore.ErrDatasetNotFound) {
				if _, verr := e.Catalog().View(ctx, id); verr == nil {
					return fmt.Errorf("%w: %s is a view; only datasets can be compacted", catalogstore.ErrNotSupported, id.Short())
				}
			}
			if err != nil {
				return err
			}
			var bar *progressbar.ProgressBar
			cfg := maintenance.Config{Strategy: strategy, DryRun: dryRun, Author: g.user, MemoryBudget: g.env.compactionMemory,
				Progress: func(p maintenance.Progress) { bar = showProgress(bar, stderr, p) }}
			res, err := maintenance.Compact(ctx, e.Catalog(), ds, cfg)
			if bar != nil {
				if err == nil {
					_ = bar.Finish()
				}
				fmt.Fprintln(stderr)
			}
			if err != nil {
				return err
			}
			if res == nil {
				_, err := fmt.Fprintf(stdout, "%s: nothing to compact (no file clears the size thresholds)\n", id.Short())
				return err
			}
			p := res.Plan
			fmt.Fprintf(stdout, "plan: %s (%s), %d input files, %d rows, %d expected outputs, reason: %s\n",
				p.Type, p.Mode, len(p.Files), p.InputRows, p.ExpectedOutputs, p.Reason)
			if p.SortColumn != "" {
				fmt.Fprintf(stdout, "sort column: %s\n", p.SortColumn)
			}
			if res.Snapshot == nil {
				for _, f := range p.Files {
					fmt.Fprintf(stdout, "input: %s\n", f)
				}
			}
			if res.Snapshot != nil {
				fmt.Fprintf(stdout, "committed snapshot %d: %d files, %d records\n", res.Snapshot.ID, res.Snapshot.Summary.TotalFiles, res.Snapshot.Summary.TotalRecords)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan, change nothing")
	cmd.Flags().StringVar(&rule, "rule", "", "brute, sort_aware (alias performance) or delete_debt (default: chosen from the sort order)")
	return cmd
}

// showProgress draws a compaction pass's progress on w: a bar over the
// inputs' uncompressed bytes, described by the stage and the files read
// and written. It creates the bar on the first report with a size (a dry
// run reports none, so it draws nothing).
func showProgress(bar *progressbar.ProgressBar, w io.Writer, p maintenance.Progress) *progressbar.ProgressBar {
	if bar == nil {
		if p.BytesTotal <= 0 {
			return nil
		}
		bar = progressbar.NewOptions64(p.BytesTotal, progressbar.OptionSetWriter(w), progressbar.OptionShowBytes(true),
			progressbar.OptionSetWidth(30), progressbar.OptionSetPredictTime(false))
	}
	bar.Describe(fmt.Sprintf("compact: %s, %d/%d files read, %d written", p.Stage, p.FilesDone, p.FilesTotal, p.Outputs))
	_ = bar.Set64(p.BytesDone)
	return bar
}

// newFsckCmd is `lakesql fsck [c.t]`: verify one dataset, or every
// dataset of the workspace, and fail if anything is inconsistent.
func newFsckCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var deep bool
	cmd := &cobra.Command{
		Use:   "fsck [COLLECTION.TABLE]",
		Short: "Verify datasets: manifests readable, summaries match, referenced files present, refresh triggers and views consistent",
		Long: `fsck verifies one dataset, or without an argument every dataset (and
materialized view) of the workspace: every snapshot's manifest reads, the
summaries match the manifests, every referenced file exists with its recorded
size, no refresh trigger (or source-tables) cycle runs through it, and
materialized-view registrations are whole. With --deep it also reads every
referenced data file whole and compares its checksum with the one its manifest
records, listing each damaged file. Each finding is printed and raised as an
alert; fsck exits non-zero when there is any.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := g.open(ctx, stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			ids, err := fsckTargets(ctx, e.Catalog(), e.Workspace(), args)
			if err != nil {
				return err
			}
			findings := 0
			for _, id := range ids {
				n, err := fsckOne(ctx, e.Catalog(), id, deep, stdout)
				if err != nil {
					return err
				}
				findings += n
			}
			if findings > 0 {
				return fmt.Errorf("fsck: %d findings in %d datasets checked", findings, len(ids))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&deep, "deep", false, "also read every data file whole and check it against its recorded checksum")
	return cmd
}

// fsckTargets is the dataset named, or every dataset of the workspace.
func fsckTargets(ctx context.Context, cat *catalogstore.Catalog, ws string, args []string) ([]catalogstore.Ident, error) {
	if len(args) == 1 {
		id, err := catalogstore.ParseIdent(ws, args[0])
		if err != nil {
			return nil, err
		}
		return []catalogstore.Ident{id}, nil
	}
	colls, err := cat.ListCollections(ctx, ws)
	if err != nil {
		return nil, err
	}
	var ids []catalogstore.Ident
	for _, c := range colls {
		dss, err := cat.ListDatasets(ctx, ws, c.Name)
		if err != nil {
			return nil, err
		}
		for i := range dss {
			ids = append(ids, dss[i].Ident())
		}
	}
	return ids, nil
}

// fsckOne verifies one dataset, prints what it checked and its findings,
// and returns how many there were.
func fsckOne(ctx context.Context, cat *catalogstore.Catalog, id catalogstore.Ident, deep bool, stdout io.Writer) (int, error) {
	ds, err := cat.Dataset(ctx, id)
	if err != nil {
		return 0, err
	}
	var opts []maintenance.Option
	if deep {
		opts = append(opts, maintenance.Deep())
	}
	res, err := maintenance.Verify(ctx, cat, ds, opts...)
	if err != nil {
		return 0, err
	}
	n := len(res.Findings) + res.Omitted
	fmt.Fprintf(stdout, "%s: %d snapshots, %d manifests, %d files checked, %d findings\n", id.Short(), res.Snapshots, res.Manifests, res.Files, n)
	if deep {
		fmt.Fprintf(stdout, "%s: %d files checksummed, %d without a recorded checksum\n", id.Short(), res.Checksummed, res.Unrecorded)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(stdout, "%s\t%s\tsnapshot %d\t%s\t%s\n", f.Severity, f.Check, f.SnapshotID, f.Path, f.Detail)
	}
	return n, nil
}

// newExpireCmd is `lakesql expire [c.t]`: snapshot expiry by each
// dataset's retention properties, for a scheduler (cron, Cloud Scheduler)
// to run. Without an argument it expires every dataset of the workspace
// that has a snapshot_retention property and skips the others.
func newExpireCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "expire [COLLECTION.TABLE]",
		Short: "Expire snapshots by the datasets' snapshot_retention / snapshot_retain_last properties",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := g.open(ctx, stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			ids, err := fsckTargets(ctx, e.Catalog(), e.Workspace(), args)
			if err != nil {
				return err
			}
			for _, id := range ids {
				ds, err := e.Catalog().Dataset(ctx, id)
				if err != nil {
					return err
				}
				res, r, err := maintenance.ExpireByPolicy(ctx, e.Catalog(), ds, g.user)
				if errors.Is(err, maintenance.ErrNoRetentionPolicy) && len(args) == 0 {
					fmt.Fprintf(stdout, "%s: no retention policy, skipped\n", id.Short())
					continue
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s: older than %s, retain last %d: %d expired, %d purged\n", id.Short(), r.Age, r.RetainLast, len(res.Expired), len(res.Purged))
			}
			return nil
		},
	}
}
