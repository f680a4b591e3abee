package producer

import (
	"context"
	"fmt"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/kafkaconn/franz"
)

// waitForGroup polls until the consumer group is Stable with the expected
// members, each with its assignment. Like topicMaxMessageBytes it is control
// traffic, on a client of its own whichever client measures: sarama's
// DescribeGroups for a classic group, franz-go's ConsumerGroupDescribe for a
// consumer-protocol one (to DescribeGroups such a group is Dead).
func waitForGroup(ctx context.Context, brokers []string, sec kafkaconn.Security, group string, cs trial.ConsumerSettings, members int, timeout time.Duration) error {
	protocol := cs.GroupProtocol
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	describe, closeFn, err := groupDescriber(ctx, brokers, sec, group, cs)
	if err != nil {
		return err
	}
	defer closeFn()
	deadline := time.Now().Add(timeout)
	last := "unknown"
	for {
		state, n, settled, err := describe()
		if err == nil {
			last = fmt.Sprintf("state %s with %d of %d members", state, n, members)
			if state == "Stable" && n == members && settled {
				return nil
			}
		}
		if time.Now().After(deadline) {
			hint := ""
			if cs.GroupType == trial.GroupTypeShare {
				hint = " (share groups need Kafka 4.2+ brokers with share.version 1)"
				return fmt.Errorf("share group %s not ready after %s: %s%s", group, timeout, last, hint)
			}
			if protocol.OrDefault() == trial.GroupProtocolConsumer {
				hint = " (the consumer protocol needs Kafka 4.0+ brokers with group.version 1; a client falls back to the classic protocol without it)"
			}
			return fmt.Errorf("consumer group %s (%s protocol) not ready after %s: %s%s", group, protocol.OrDefault(), timeout, last, hint)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for consumer group %s: %w", group, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// describeFunc reads a group's state, member count, and whether every member
// has reconciled its assignment.
type describeFunc func() (state string, members int, settled bool, err error)

// groupDescriber is the protocol's describe call on a client of its own, and
// what closes that client.
func groupDescriber(ctx context.Context, brokers []string, sec kafkaconn.Security, group string, cs trial.ConsumerSettings) (describeFunc, func(), error) {
	share := cs.GroupType == trial.GroupTypeShare
	if share || cs.GroupProtocol.OrDefault() == trial.GroupProtocolConsumer {
		opts, err := franz.Opts(sec, brokers, "serdebench-group-wait", kafkaconn.Buffers{})
		if err != nil {
			return nil, nil, err
		}
		cl, err := franz.New(ctx, brokers, opts...)
		if err != nil {
			return nil, nil, err
		}
		if share {
			return func() (string, int, bool, error) { return describeShare(ctx, cl, group) }, cl.Close, nil
		}
		return func() (string, int, bool, error) {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			req := kmsg.NewPtrConsumerGroupDescribeRequest()
			req.Groups = []string{group}
			resp, err := req.RequestWith(rctx, cl)
			if err != nil {
				return "", 0, false, err
			}
			if len(resp.Groups) != 1 {
				return "", 0, false, fmt.Errorf("describe group %s: %d groups in the answer", group, len(resp.Groups))
			}
			g := resp.Groups[0]
			if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
				return "", 0, false, fmt.Errorf("describe group %s: %w", group, err)
			}
			settled := true
			for _, m := range g.Members {
				// A member is reconciled once it runs at the group's epoch.
				settled = settled && m.MemberEpoch == g.Epoch
			}
			return g.State, len(g.Members), settled, nil
		}, cl.Close, nil
	}
	c := kafkaconn.Base("serdebench-group-wait")
	if err := sec.Apply(c); err != nil {
		return nil, nil, err
	}
	client, err := kafkaconn.NewClient(ctx, brokers, c)
	if err != nil {
		return nil, nil, err
	}
	return func() (string, int, bool, error) {
		// sarama's calls take no context; each poll is bounded by ctx all the same.
		g, err := kafkaconn.Bounded(ctx, func() (*sarama.GroupDescription, error) {
			b, err := client.Coordinator(group)
			if err != nil {
				_ = client.RefreshCoordinator(group)
				return nil, err
			}
			resp, err := b.DescribeGroups(&sarama.DescribeGroupsRequest{Groups: []string{group}})
			if err != nil || len(resp.Groups) != 1 {
				return nil, fmt.Errorf("describe group %s: %w", group, err)
			}
			return resp.Groups[0], nil
		})
		if err != nil {
			return "", 0, false, err
		}
		return g.State, len(g.Members), true, nil
	}, func() { _ = client.Close() }, nil
}

// describeShare is a share group's state, member count, and whether every
// member runs at the group's assignment epoch, which has caught up with the
// group's epoch (ShareGroupDescribe).
func describeShare(ctx context.Context, cl *kgo.Client, group string) (string, int, bool, error) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = []string{group}
	resp, err := req.RequestWith(rctx, cl)
	if err != nil {
		return "", 0, false, err
	}
	if len(resp.Groups) != 1 {
		return "", 0, false, fmt.Errorf("describe share group %s: %d groups in the answer", group, len(resp.Groups))
	}
	g := resp.Groups[0]
	if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
		return "", 0, false, fmt.Errorf("describe share group %s: %w", group, err)
	}
	settled := g.AssignmentEpoch == g.GroupEpoch
	for _, m := range g.Members {
		settled = settled && m.MemberEpoch == g.AssignmentEpoch
	}
	return g.GroupState, len(g.Members), settled, nil
}
