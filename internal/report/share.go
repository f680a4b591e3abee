package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// shareOf reads a result's share-group deliveries back into the table's units.
func shareOf(x *v1alpha1.ShareResult) *summary.Share {
	if x == nil {
		return nil
	}
	return &summary.Share{Acknowledgement: string(x.Acknowledgement), Deliveries: x.Deliveries, Redelivered: x.Redelivered,
		Released: x.Released, Archived: x.Archived, MaxDeliveryCount: x.MaxDeliveryCount, AckErrors: x.AckErrors,
		SettledLag: x.SettledLag, Ack: summary.Percentiles{P50: x.AckP50Micros, P99: x.AckP99Micros, Max: x.AckMaxMicros}}
}

// ShareTable writes the share-group trials' deliveries, when there are any:
// what at-least-once delivery cost them (docs/measurement.md, "Share groups").
func ShareTable(w io.Writer, rows []Row) error {
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.Share != nil }) {
		return nil
	}
	fmt.Fprintln(w, "\nShare groups (deliveries: records handed to a consumer, warmup included; ack: explicit acknowledgement's wait, from asking to the broker's answer):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CODEC\tSIZE B\tSETTINGS\tack mode\tdeliveries\tredelivered\tduplicated\treleased\tarchived\tmax deliveries\tack p50 ms\tack p99 ms\t")
	for _, r := range rows {
		x := r.Share
		if x == nil {
			continue
		}
		settings := r.settingsLabel()
		ack50, ack99 := "-", "-"
		if x.Ack.Count > 0 || x.Ack.P50 > 0 {
			ack50, ack99 = fmt.Sprintf("%.2f", float64(x.Ack.P50)/1e3), fmt.Sprintf("%.2f", float64(x.Ack.P99)/1e3)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", r.Codec, r.SizeBytes, settings, x.Acknowledgement,
			x.Deliveries, x.Redelivered, r.Duplicated, x.Released, x.Archived, x.MaxDeliveryCount, ack50, ack99)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "share groups deliver at least once: duplicated records were processed again after a redelivery, counted, not failures; archived records were released on their last allowed delivery (share.releaseOneIn).")
	for _, r := range rows {
		if r.Share != nil && r.Share.SettledLag > 0 {
			fmt.Fprintf(w, "%s %d B %s: counted complete when the group's offsets stopped moving, with a lag of %d still reported (a stale persisted count, as Kafka 4.3 leaves; records truly not delivered show as lost).\n",
				r.Codec, r.SizeBytes, r.settingsLabel(), r.Share.SettledLag)
		}
	}
	return nil
}
