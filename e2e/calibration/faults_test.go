//go:build calibration

package calibration

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// faultCal is hack/calibrate/faultcal's output (the fields the checks use).
type faultCal struct {
	BaseRTTMillis float64 `json:"baseRTTMillis"`
	Delays        []struct {
		Setting                            string
		WantMean, WantStdDev, Mean, StdDev float64
		Samples                            int
		EngineMean, EngineStdDev           float64
	} `json:"delays"`
	Losses []struct {
		SettingPercent, RigPercent, RetransmitPercent  float64
		RigPackets, OutSegs, RetransSegs, NeedlessSegs int64
		EngineLostPackets                              int64
	} `json:"losses"`
	Bandwidth struct {
		SettingBytesPerSecond                        int64
		ReceiverBytesPerSecond, EngineBytesPerSecond float64
	} `json:"bandwidth"`
}

// Tolerances of the fault engine's calibration (docs/faults.md, "Calibration").
const (
	delayToleranceMs = 1.0
	// lossTolerancePP bounds TCP's retransmission share below the setting.
	lossTolerancePP = 0.5
	// neededTolerance bounds the gap between the resends a loss called for and
	// the engine's drops, as a share of the drops and at least neededSlack
	// segments: both count the same segments, so only a dropped segment TCP
	// never resends (a pure ACK) or a needless resend the receiver reported
	// under another (one D-SACK for several, or one the sender found dubious)
	// may part them, and those come with loss events. The worst seen: 58 of
	// 7,872 drops at 10 % under six busy loops on 2 cores. A bias of the
	// engine's count this size is 0.09 pp at 3 %, within the binomial check's
	// ±0.25.
	neededTolerance = 0.03
	neededSlack     = 10
	// lossSE is how many standard errors of the binomial the engine's drop share
	// may miss its setting by, alone and (lossPooledSE) over all settings
	// together, where a bias of 0.2 points shows as more than 5.
	lossSE       = 4.0
	lossPooledSE = 3.5
	// lossPackets is the fewest packets a setting must see for that to hold.
	lossPackets          = 50_000
	bandwidthTolerancePc = 5.0
)

// checkFaults asserts the fault engine's measurements and appends them to table.
func checkFaults(t *testing.T, out string, table *strings.Builder) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "faults.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fc faultCal
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	if len(fc.Delays) < 2 || len(fc.Losses) < 4 || fc.Bandwidth.SettingBytesPerSecond == 0 {
		t.Fatalf("faults.json lacks measurements: %s", b)
	}
	fmt.Fprintf(table, "\n| fault engine | setting | measured from outside | the engine's own | tolerance |\n|---|---|---|---|---|\n")
	for _, d := range fc.Delays {
		fmt.Fprintf(table, "| delay (UDP echo, %d samples), ms | %s: mean %.2f, sd %.2f | mean %.2f, sd %.2f | mean %.2f, sd %.2f | ±%.0f |\n",
			d.Samples, d.Setting, d.WantMean, d.WantStdDev, d.Mean, d.StdDev, d.EngineMean, d.EngineStdDev, delayToleranceMs)
		if math.Abs(d.Mean-d.WantMean) > delayToleranceMs || math.Abs(d.StdDev-d.WantStdDev) > delayToleranceMs {
			t.Errorf("delay %s: measured mean %.2f ms sd %.2f ms, want %.2f and %.2f ± %.0f", d.Setting, d.Mean, d.StdDev, d.WantMean, d.WantStdDev, delayToleranceMs)
		}
	}
	var excess, variance float64 // drops beyond the settings', and their binomial variance
	for _, l := range fc.Losses {
		// TCP resends every dropped segment, and some that were not dropped: a
		// tail loss probe or a timeout that fires while the original is on its
		// way (3.93 % retransmitted at 3 % loss on CI's machine, the engine's
		// count 3.01 %). The receiver reports those by D-SACK, so the resends a
		// loss called for are the retransmissions less the needless ones, and
		// they must match the engine's drops.
		p, n := l.SettingPercent/100, float64(l.RigPackets)
		se := 100 * math.Sqrt(p*(1-p)/n) // in points
		needed := l.RetransSegs - l.NeedlessSegs
		gap := needed - l.EngineLostPackets
		allowed := max(neededSlack, int64(math.Ceil(neededTolerance*float64(l.EngineLostPackets))))
		fmt.Fprintf(table, "| loss, %% | %.0f | TCP retransmitted %.2f (%d of %d; %d needless by D-SACK, so %d called for: %+d against the engine's drops) | dropped %.2f of %d packets (%+.1f standard errors) | engine ±%.2f pp (%.0f SE); TCP ≥ −%.1f pp, called for ±%d |\n",
			l.SettingPercent, l.RetransmitPercent, l.RetransSegs, l.OutSegs+l.RetransSegs, l.NeedlessSegs, needed, gap,
			l.RigPercent, l.RigPackets, (l.RigPercent-l.SettingPercent)/se, lossSE*se, lossSE, lossTolerancePP, allowed)
		if l.RigPackets < lossPackets {
			t.Errorf("loss %.0f%%: the engine saw %d packets, fewer than the %d a 0.2-point bias needs to show", l.SettingPercent, l.RigPackets, lossPackets)
		}
		if math.Abs(l.RigPercent-l.SettingPercent) > lossSE*se {
			t.Errorf("loss %.0f%%: the engine dropped %.2f%% of %d packets, want within ±%.2f pp (%.0f standard errors)", l.SettingPercent, l.RigPercent, l.RigPackets, lossSE*se, lossSE)
		}
		excess += (l.RigPercent/100 - p) * n
		variance += p * (1 - p) * n
		if l.RetransmitPercent < l.SettingPercent-lossTolerancePP {
			t.Errorf("loss %.0f%%: TCP retransmitted %.2f%% of its segments, want at least %.1f: the drops did not reach TCP",
				l.SettingPercent, l.RetransmitPercent, l.SettingPercent-lossTolerancePP)
		}
		if gap < -allowed || gap > allowed {
			t.Errorf("loss %.0f%%: TCP resent %d segments a loss called for (%d retransmitted, %d needless by D-SACK), the engine dropped %d: %+d, want within ±%d (%.0f %% of the drops, at least %d)",
				l.SettingPercent, needed, l.RetransSegs, l.NeedlessSegs, l.EngineLostPackets, gap, allowed, 100*neededTolerance, neededSlack)
		}
	}
	if z := excess / math.Sqrt(variance); math.Abs(z) > lossPooledSE {
		t.Errorf("over every loss setting the engine dropped %+.0f packets more than set, %+.1f standard errors: a bias, not chance (want within ±%.1f)", excess, z, lossPooledSE)
	} else {
		fmt.Fprintf(table, "| loss, all settings | | | %+.0f packets beyond the settings (%+.1f standard errors) | ±%.1f SE |\n", excess, z, lossPooledSE)
	}
	bw := fc.Bandwidth
	set := float64(bw.SettingBytesPerSecond)
	fmt.Fprintf(table, "| bandwidth, B/s (IP) | %.0f | receiver %.0f (%+.2f %%) | released %.0f (%+.2f %%) | ±%.0f %% |\n",
		set, bw.ReceiverBytesPerSecond, 100*(bw.ReceiverBytesPerSecond/set-1), bw.EngineBytesPerSecond, 100*(bw.EngineBytesPerSecond/set-1), bandwidthTolerancePc)
	for name, v := range map[string]float64{"receiver": bw.ReceiverBytesPerSecond, "engine": bw.EngineBytesPerSecond} {
		if math.Abs(v/set-1)*100 > bandwidthTolerancePc {
			t.Errorf("bandwidth cap %.0f B/s: %s measured %.0f B/s, want within %.0f %%", set, name, v, bandwidthTolerancePc)
		}
	}
}
