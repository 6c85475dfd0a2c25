package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/labstack/echo"
)

// LoopbackProvider is the cluster provider of the members one launcher starts
// on one machine. Like Proto.Actor's automanaged provider, every member polls
// every member's /_health and the ones that answer are the cluster. It differs
// in one rule: it tells a member that is gone from one that is slow. A refused
// connection (nothing listens on the member's port: it died) drops the member
// at its first poll; a poll that times out keeps it while it answered within
// its slow grace (slowMemberGrace). automanaged drops a member at its first poll slower than 2 s, and
// Proto.Actor never lets a dropped member back in (its id is blocked), so a
// member starved of CPU for 2 s on a loaded machine left the cluster for good
// and every grain it owned answered 504 until the target was restarted.
type LoopbackProvider struct {
	hosts    []string
	interval time.Duration
	web      *echo.Echo
	client   *http.Client
	view     *Membership
	log      *slog.Logger
	stop     chan struct{}
	stopOnce sync.Once
}

// NewLoopbackProvider polls hosts every interval (each poll may take timeout)
// and serves this member's /_health on web, whose listener the caller set.
func NewLoopbackProvider(web *echo.Echo, hosts []string, interval, timeout, slowGrace time.Duration, log *slog.Logger) *LoopbackProvider {
	return &LoopbackProvider{
		hosts:    hosts,
		interval: interval,
		web:      web,
		client:   &http.Client{Timeout: timeout},
		view:     NewMembership(slowGrace),
		log:      log,
		stop:     make(chan struct{}),
	}
}

// StartMember serves /_health and keeps the cluster's member list.
func (p *LoopbackProvider) StartMember(c *cluster.Cluster) error {
	go func() {
		if err := p.web.Start(""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Error("membership listener stopped", slog.Any("error", err))
		}
	}()
	go p.watch(c)
	return nil
}

// StartClient keeps the member list without serving /_health (a client hosts no grains).
func (p *LoopbackProvider) StartClient(c *cluster.Cluster) error {
	go p.watch(c)
	return nil
}

// Shutdown stops polling and serving.
func (p *LoopbackProvider) Shutdown(bool) error {
	p.stopOnce.Do(func() { close(p.stop) })
	return p.web.Close()
}

func (p *LoopbackProvider) watch(c *cluster.Cluster) {
	name := c.Config.Name
	for {
		var wg sync.WaitGroup
		polls := make([]pollResult, len(p.hosts))
		for i, host := range p.hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				polls[i] = p.poll(host)
			}()
		}
		wg.Wait()
		now := time.Now()
		for i, host := range p.hosts {
			note, _ := p.view.Observe(host, polls[i].node, polls[i].err, now)
			switch {
			case note == "":
			case polls[i].err == nil:
				p.log.Info("membership", slog.String("host", host), slog.String("poll", note))
			default:
				// a slow or lost member is what a 504 of its grains traces back to
				p.log.Warn("membership", slog.String("host", host), slog.String("poll", note))
			}
		}
		c.MemberList.UpdateClusterTopology(p.view.Members(name))
		select {
		case <-p.stop:
			return
		case <-time.After(p.interval):
		}
	}
}

type pollResult struct {
	node *automanaged.NodeModel
	err  error
}

func (p *LoopbackProvider) poll(host string) pollResult {
	res, err := p.client.Get("http://" + host + "/_health")
	if err != nil {
		return pollResult{err: err}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return pollResult{err: fmt.Errorf("/_health answered %d", res.StatusCode)}
	}
	var node automanaged.NodeModel
	if err := json.NewDecoder(res.Body).Decode(&node); err != nil {
		return pollResult{err: fmt.Errorf("/_health: %w", err)}
	}
	return pollResult{node: &node}
}

// Membership is what one member knows of the others: each host's node as it
// last answered, and when. Kept by one goroutine.
type Membership struct {
	slowGrace time.Duration
	last      map[string]answered
}

type answered struct {
	node *automanaged.NodeModel
	at   time.Time
}

// NewMembership keeps a host that does not answer in time for slowGrace after its last answer.
func NewMembership(slowGrace time.Duration) *Membership {
	return &Membership{slowGrace: slowGrace, last: map[string]answered{}}
}

// Observe records one poll of host: its node, or the error the poll ended
// with. It answers whether the cluster's members changed, and a note for the
// log ("" for a poll that answered as the one before).
func (m *Membership) Observe(host string, node *automanaged.NodeModel, err error, now time.Time) (note string, changed bool) {
	prev, known := m.last[host]
	switch {
	case err == nil:
		m.last[host] = answered{node: node, at: now}
		if !known {
			return "answers: member " + node.ID + " joins", true
		}
		if prev.node.ID != node.ID {
			return "answers as a new member " + node.ID + "; " + prev.node.ID + " leaves", true
		}
		return "", false
	case !known:
		return "", false
	case errors.Is(err, syscall.ECONNREFUSED):
		delete(m.last, host)
		return "refuses connections: member " + prev.node.ID + " is gone", true
	case now.Sub(prev.at) > m.slowGrace:
		delete(m.last, host)
		return fmt.Sprintf("has not answered for %s (%v): member %s leaves", now.Sub(prev.at).Round(time.Second), err, prev.node.ID), true
	default:
		return fmt.Sprintf("slow (%v): member %s stays, last answer %s ago", err, prev.node.ID, now.Sub(prev.at).Round(100*time.Millisecond)), false
	}
}

// Members are the hosts' nodes of cluster name, as the cluster's member list wants them.
func (m *Membership) Members(name string) []*cluster.Member {
	members := make([]*cluster.Member, 0, len(m.last))
	for _, a := range m.last {
		if a.node.ClusterName != name {
			continue
		}
		members = append(members, &cluster.Member{Id: a.node.ID, Host: a.node.Address, Port: int32(a.node.Port), Kinds: a.node.Kinds})
	}
	return members
}
