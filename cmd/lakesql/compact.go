package main

import (
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
			if err != nil {
				return err
			}
			var bar *progressbar.ProgressBar
			cfg := maintenance.Config{Strategy: maintenance.Strategy(rule), DryRun: dryRun, Author: g.user,
				Progress: func(p maintenance.Progress) {
					if bar == nil && p.BytesTotal > 0 {
						bar = progressbar.NewOptions64(p.BytesTotal, progressbar.OptionSetWriter(stderr),
							progressbar.OptionShowBytes(true), progressbar.OptionSetDescription("compacting"))
					}
					if bar != nil {
						bar.Set64(p.BytesDone)
					}
				}}
			res, err := maintenance.Compact(ctx, e.Catalog(), ds, cfg)
			if bar != nil {
				bar.Finish()
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
			fmt.Fprintf(stdout, "plan: %s (%s), %d input files, reason: %s\n", p.Type, p.Mode, len(p.Files), p.Reason)
			if res.Snapshot != nil {
				fmt.Fprintf(stdout, "committed snapshot %d: %d files, %d records\n", res.Snapshot.ID, res.Snapshot.Summary.TotalFiles, res.Snapshot.Summary.TotalRecords)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan, change nothing")
	cmd.Flags().StringVar(&rule, "rule", "", "brute or sort_aware (default: chosen from the sort order)")
	return cmd
}

// newFsckCmd is `lakesql fsck c.t`: verify a dataset's snapshots,
// manifests and files.
func newFsckCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "fsck COLLECTION.TABLE",
		Short: "Verify a dataset: manifests readable, summaries match, referenced files present",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
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
			if err != nil {
				return err
			}
			res, err := maintenance.Verify(ctx, e.Catalog(), ds)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: %d snapshots, %d manifests, %d files checked, %d findings\n", id.Short(), res.Snapshots, res.Manifests, res.Files, len(res.Findings)+res.Omitted)
			for _, f := range res.Findings {
				fmt.Fprintf(stdout, "%s\t%s\tsnapshot %d\t%s\t%s\n", f.Severity, f.Check, f.SnapshotID, f.Path, f.Detail)
			}
			if len(res.Findings) > 0 {
				return fmt.Errorf("%s is inconsistent: %d findings", id.Short(), len(res.Findings)+res.Omitted)
			}
			return nil
		},
	}
}
