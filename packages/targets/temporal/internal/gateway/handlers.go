package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/trace"
)

// checkoutBudget bounds the wait for a checkout workflow; past it the answer
// is 503 and the workflow still finishes (a retry of the cart's checkout then
// sees it done).
const checkoutBudget = 30 * time.Second

// maxVisits refuses (400) freq-items queries that would visit more products.
const maxVisits = 100_000

// newID is a random UUID (version 4).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func productFields(r *request) (price, stock *int64, err error) {
	f, err := object(r.body, true)
	if err != nil {
		return nil, nil, err
	}
	if v, ok, err := intField(f, "price", 0, false); err != nil {
		return nil, nil, err
	} else if ok {
		price = &v
	}
	if v, ok, err := intField(f, "stock", 0, false); err != nil {
		return nil, nil, err
	} else if ok {
		stock = &v
	}
	return price, stock, nil
}

func deref(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

func createProduct(s *Server, r *request) (any, error) {
	price, stock, err := productFields(r)
	if err != nil {
		return nil, err
	}
	id := newID()
	return id, s.store.CreateProduct(r.http.Context(), id, deref(price), deref(stock))
}

func patchProduct(s *Server, r *request) (any, error) {
	price, stock, err := productFields(r)
	if err != nil {
		return nil, err
	}
	return r.ids[0], s.store.UpsertProduct(r.http.Context(), r.ids[0], price, stock)
}

func getProduct(s *Server, r *request) (any, error) {
	return s.store.GetProduct(r.http.Context(), r.ids[0])
}

func createUser(s *Server, r *request) (any, error) {
	f, err := object(r.body, true)
	if err != nil {
		return nil, err
	}
	credits, _, err := intField(f, "credits", 0, false)
	if err != nil {
		return nil, err
	}
	id := newID()
	return id, s.store.CreateUser(r.http.Context(), id, credits)
}

func getUser(s *Server, r *request) (any, error) { return s.store.GetUser(r.http.Context(), r.ids[0]) }

func addCredits(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	credits, _, err := intField(f, "credits", 1, true)
	if err != nil {
		return nil, err
	}
	return nil, s.store.AddCredits(r.http.Context(), r.ids[0], credits)
}

func createCart(s *Server, r *request) (any, error) {
	id := newID()
	return id, s.store.CreateCart(r.http.Context(), id)
}

func getCart(s *Server, r *request) (any, error) { return s.store.GetCart(r.http.Context(), r.ids[0]) }

func addToCart(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	productID, err := idField(f, "productId")
	if err != nil {
		return nil, err
	}
	amount, _, err := intField(f, "amount", 1, true)
	if err != nil {
		return nil, err
	}
	return nil, s.store.AddToCart(r.http.Context(), r.ids[0], productID, amount)
}

func getOrder(s *Server, r *request) (any, error) {
	return s.store.GetOrder(r.http.Context(), r.ids[0])
}

// checkout runs the cart's checkout workflow and waits for its result. The
// workflow id is the cart's: while one checkout of a cart runs, another
// waits for it and then runs its own, which finds the cart checked out when
// the first succeeded (a cart is charged at most once) and tries again when
// it failed.
func checkout(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	cartID, err := idField(f, "cartId")
	if err != nil {
		return nil, err
	}
	userID, err := idField(f, "userId")
	if err != nil {
		return nil, err
	}
	// Not the request's context: a client that gives up must not end the
	// wait, or the completed order would get its co-purchase start only from the sweep.
	ctx, cancel := context.WithTimeout(context.Background(), checkoutBudget)
	defer cancel()
	if r.link != nil {
		// the workflow's header carries it to the activities (trace.Propagator)
		ctx = trace.WithLink(ctx, *r.link)
	}
	in := shop.CheckoutInput{OrderID: newID(), CartID: cartID, UserID: userID}
	opts := client.StartWorkflowOptions{
		ID:                                       shop.CheckoutWorkflowID(cartID),
		TaskQueue:                                shop.TaskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		EnableEagerStart:                         true,
	}
	for {
		run, err := s.temporal.ExecuteWorkflow(ctx, opts, shop.Checkout, in)
		var running *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &running) {
			_ = s.temporal.GetWorkflow(ctx, opts.ID, running.RunId).Get(ctx, nil)
			if ctx.Err() != nil {
				return nil, unavailable{fmt.Errorf("checkout of cart %q: another checkout of the cart did not end within %s", cartID, checkoutBudget)}
			}
			continue
		}
		if err != nil {
			return nil, workflowError("checkout", err)
		}
		var res shop.CheckoutResult
		if err := run.Get(ctx, &res); err != nil {
			return nil, workflowError("checkout", err)
		}
		if res.Failure != nil {
			return nil, res.Failure
		}
		// Step 6 after the answer: the start goes out while the answer is written.
		go s.StartCoPurchase(res.OrderID)
		return map[string]any{"orderId": res.OrderID, "total": res.Total}, nil
	}
}

// StartCoPurchase starts the co-purchase workflow of a completed order
// (fire-and-forget). Its id is the order's, so a second start while it runs
// is the same workflow; one that ran already finds the order counted. A
// start that fails is left to the sweep (cmd/temporal-target).
func (s *Server) StartCoPurchase(orderID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    shop.CoPurchaseWorkflowID(orderID),
		TaskQueue:             shop.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		EnableEagerStart:      true,
	}, shop.CoPurchase, orderID)
	if err != nil {
		s.Logf("co-purchase of order %s: %v (the sweep starts it again)", orderID, err)
		return
	}
	s.coPurchases.Store(orderID, time.Now())
}

// coPurchaseForgetAfter is how long a started co-purchase is remembered once
// its order has left the sweep's list (the list holds only orders older than
// the sweep's period, so a younger one is not on it yet).
const coPurchaseForgetAfter = time.Minute

// SweepCoPurchases starts the co-purchase workflows of pending orders (completed,
// not counted yet) whose start never reached the server: a kill -9 between the
// answer and the start, or a start that failed. An order whose workflow the
// server accepted is left to it, however long its queue is: starting it again
// every sweep would only add a server round trip per waiting order while the
// server works off a backlog. It answers how many it started.
func (s *Server) SweepCoPurchases(pending []string) int {
	waiting := make(map[string]bool, len(pending))
	started := 0
	for _, id := range pending {
		waiting[id] = true
		if _, ok := s.coPurchases.Load(id); !ok {
			s.StartCoPurchase(id)
			started++
		}
	}
	s.coPurchases.Range(func(k, v any) bool {
		if !waiting[k.(string)] && time.Since(v.(time.Time)) > coPurchaseForgetAfter {
			s.coPurchases.Delete(k)
		}
		return true
	})
	return started
}

// workflowError: a workflow that did not answer in time is 503, anything else 500.
func workflowError(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return unavailable{fmt.Errorf("%s: no answer in time: %w", what, err)}
	}
	return fmt.Errorf("%s: %w", what, err)
}

func freqItems(s *Server, r *request) (any, error) {
	top, err := queryInt(r.query, "top", freqTopMin, freqTopMax, freqTopDef)
	if err != nil {
		return nil, err
	}
	depth, err := queryInt(r.query, "depth", freqDepMin, freqDepMax, freqDepDef)
	if err != nil {
		return nil, err
	}
	ctx := r.http.Context()
	root := r.ids[0]
	found, err := s.store.ProductExists(ctx, root)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &store.Failure{Status: 404, Code: "not-found", Message: fmt.Sprintf("product %q not found", root)}
	}
	v := &visitor{store: s.store, top: top, seen: map[string]struct{}{}}
	if err := v.visit(ctx, root, depth, []string{root}); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(v.seen))
	for id := range v.seen {
		out = append(out, id)
	}
	return out, nil
}

// visitor walks SPEC 2.2's visit(p, d, V), the children of a product concurrently.
type visitor struct {
	store  *store.Store
	top    int
	mu     sync.Mutex
	seen   map[string]struct{}
	visits int
}

func (v *visitor) visit(ctx context.Context, p string, depth int, exclude []string) error {
	v.mu.Lock()
	v.visits++
	over := v.visits > maxVisits
	v.mu.Unlock()
	if over {
		return bad("top=%d&depth=%d: would visit more than %d products", v.top, depth, maxVisits)
	}
	c, err := v.store.Top(ctx, p, v.top, exclude)
	if err != nil {
		return err
	}
	v.mu.Lock()
	for _, q := range c {
		v.seen[q] = struct{}{}
	}
	v.mu.Unlock()
	if depth == 1 || len(c) == 0 {
		return nil
	}
	next := append(append([]string{}, exclude...), c...)
	errs := make([]error, len(c))
	var wg sync.WaitGroup
	for i, q := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = v.visit(ctx, q, depth-1, next)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
