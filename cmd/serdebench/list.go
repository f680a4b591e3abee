package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// listKind is one of serdebench's kinds as `serdebench get` lists it.
type listKind struct {
	// use is the subcommand; aliases are its other names (kubectl's short name).
	use     string
	aliases []string
	kind    string
}

var (
	kindExperiment = listKind{"experiments", []string{"experiment", "sx"}, "SerializationExperiment"}
	kindSchedule   = listKind{"schedules", []string{"schedule", "ss"}, "SerializationSchedule"}
	kindResult     = listKind{"results", []string{"sr"}, "SerializationResult"}
)

// tableAccept asks the API server for its table rendering: the columns the CRD's
// printer columns define (as `kubectl get` shows them), so they live in one place.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// listCmd lists the objects of k, or the named ones, as `kubectl get` does.
func listCmd(k listKind) *cobra.Command {
	var f clusterFlags
	var output string
	c := &cobra.Command{
		Use:     k.use + " [NAME...]",
		Aliases: k.aliases,
		Short:   fmt.Sprintf("List %ss (or the named ones) with the columns kubectl shows", k.kind),
		Long: fmt.Sprintf("Lists the namespace's %ss, or the named ones, as the API server renders them for kubectl "+
			"(the CRD's printer columns; -o wide adds the rest).\n\n", k.kind) + exitHelp(exitOK, exitError, exitUsage),
		Example: fmt.Sprintf("  serdebench get %s -n kafka-bench\n  serdebench get %s -n kafka-bench -o wide", k.use, k.aliases[len(k.aliases)-1]),
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "") {
				return usagef("an empty name")
			}
			if err := outputOneOf(output, "", "wide"); err != nil {
				return err
			}
			cfg, ns, err := f.config()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			t, err := serverTable(ctx, cfg, ns, k, args)
			if err != nil {
				return err
			}
			if len(t.Rows) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "No %ss in namespace %s.\n", k.kind, ns)
				return nil
			}
			return printTable(cmd.OutOrStdout(), t, output == "wide")
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&output, "output", "o", "", "wide: every column, as kubectl get -o wide")
	return c
}

// serverTable asks the API server for the table of k's objects in ns (names: only
// those, in that order; a missing one is an error).
func serverTable(ctx context.Context, cfg *rest.Config, ns string, k listKind, names []string) (*metav1.Table, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &v1alpha1.GroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = clientscheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", c.Host, err)
	}
	resource, err := pluralOf(ctx, rc, k.kind)
	if err != nil {
		return nil, err
	}
	get := func(name string) (*metav1.Table, error) {
		req := rc.Get().Namespace(ns).Resource(resource).SetHeader("Accept", tableAccept)
		what := fmt.Sprintf("list %s in %s", resource, ns)
		if name != "" {
			req, what = req.Name(name), fmt.Sprintf("get %s %s/%s", resource, ns, name)
		}
		raw, err := req.Do(ctx).Raw()
		if apierrors.IsNotFound(err) && name != "" {
			return nil, fmt.Errorf("%s: %s %q not found in namespace %s", what, k.kind, name, ns)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		// Numbers as the server wrote them (a float64 prints 1.5e+06).
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		t := &metav1.Table{}
		if err := dec.Decode(t); err != nil {
			return nil, fmt.Errorf("%s: the API server's table: %w", what, err)
		}
		if t.Kind != "Table" {
			return nil, fmt.Errorf("%s: the API server answered with a %q, not a table", what, t.Kind)
		}
		return t, nil
	}
	if len(names) == 0 {
		return get("")
	}
	var all *metav1.Table
	for _, n := range names {
		t, err := get(n)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = t
		} else {
			all.Rows = append(all.Rows, t.Rows...)
		}
	}
	return all, nil
}

// pluralOf asks the API server for kind's resource name in serdebench's group.
func pluralOf(ctx context.Context, rc *rest.RESTClient, kind string) (string, error) {
	raw, err := rc.Get().AbsPath("/apis", v1alpha1.GroupVersion.Group, v1alpha1.GroupVersion.Version).Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("discover %s: %w (are serdebench's CRDs installed?)", v1alpha1.GroupVersion, err)
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("discover %s: %w", v1alpha1.GroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			return r.Name, nil
		}
	}
	return "", fmt.Errorf("%s serves no %s: are serdebench's CRDs current?", v1alpha1.GroupVersion, kind)
}

// printTable writes t as kubectl does: NAME first, then the columns of priority 0
// (every column when wide).
func printTable(w io.Writer, t *metav1.Table, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	var cols []int
	var head []string
	for i, c := range t.ColumnDefinitions {
		if c.Priority == 0 || wide {
			cols = append(cols, i)
			head = append(head, strings.ToUpper(c.Name))
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range t.Rows {
		cells := make([]string, len(cols))
		for j, i := range cols {
			cells[j] = "<none>" // as kubectl prints an absent value
			if i < len(r.Cells) && r.Cells[i] != nil && fmt.Sprint(r.Cells[i]) != "" {
				cells[j] = fmt.Sprint(r.Cells[i])
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
