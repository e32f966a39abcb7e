package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/iceberg"
)

// newIcebergCmd is `lakesql iceberg export [c.t]`: write or refresh the
// Iceberg metadata of one dataset, or of every dataset of the workspace.
func newIcebergCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "iceberg",
		Short: "Iceberg interop: metadata other engines read lakesql's tables with",
	}
	export := &cobra.Command{
		Use:   "export [COLLECTION.TABLE]",
		Short: "Write or refresh Iceberg v2 metadata for a dataset, or every dataset of the workspace",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := g.open(ctx, stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			cat := e.Catalog()
			var datasets []catalogstore.Dataset
			if len(args) == 1 {
				id, err := catalogstore.ParseIdent(e.Workspace(), args[0])
				if err != nil {
					return err
				}
				ds, err := cat.Dataset(ctx, id)
				if err != nil {
					return err
				}
				datasets = append(datasets, *ds)
			} else if datasets, err = workspaceDatasets(ctx, cat, e.Workspace()); err != nil {
				return err
			}
			var failed int
			for i := range datasets {
				ds := &datasets[i]
				res, err := iceberg.Export(ctx, cat, ds)
				if err != nil {
					if len(args) == 1 {
						return err
					}
					failed++
					fmt.Fprintf(stderr, "%s: %v\n", ds.Ident().Short(), err)
					continue
				}
				state := "unchanged"
				if res.Written {
					state = "written"
				}
				fmt.Fprintf(stdout, "%s\t%s\t%s\n", ds.Ident().Short(), res.MetadataLocation, state)
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d datasets not exported", failed, len(datasets))
			}
			return nil
		},
	}
	root.AddCommand(export)
	return root
}

// workspaceDatasets lists every dataset of a workspace.
func workspaceDatasets(ctx context.Context, cat *catalogstore.Catalog, ws string) ([]catalogstore.Dataset, error) {
	colls, err := cat.ListCollections(ctx, ws)
	if err != nil {
		return nil, err
	}
	var out []catalogstore.Dataset
	for _, c := range colls {
		ds, err := cat.ListDatasets(ctx, ws, c.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}
