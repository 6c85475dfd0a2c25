package gateway

import (
	"crypto/rand"
	"fmt"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
)

// actorError is an actor's non-success answer, passed on as the HTTP status.
type actorError struct{ reply *actors.Reply }

func (g *actorError) Error() string { return g.reply.Message }

// call makes one actor call and turns a non-success reply into an error.
func (s *Server) call(kind, id string, c *actors.Call, r *request) (*actors.Reply, error) {
	c.Trace = r.trace
	reply, err := s.rt.Call(kind, id, c)
	if err != nil {
		return nil, err
	}
	if reply.Status != 0 {
		return nil, &actorError{reply}
	}
	return reply, nil
}

// newID is a random UUID (version 4).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func productFields(r *request) (*actors.Call, error) {
	f, err := object(r.body, true)
	if err != nil {
		return nil, err
	}
	c := &actors.Call{}
	if v, ok, err := intField(f, "price", 0, false); err != nil {
		return nil, err
	} else if ok {
		c.Price = &v
	}
	if v, ok, err := intField(f, "stock", 0, false); err != nil {
		return nil, err
	} else if ok {
		c.Stock = &v
	}
	return c, nil
}

func createProduct(s *Server, r *request) (any, error) {
	c, err := productFields(r)
	if err != nil {
		return nil, err
	}
	id := newID()
	c.Op = "create"
	if _, err := s.call(actors.KindProduct, id, c, r); err != nil {
		return nil, err
	}
	return id, nil
}

func patchProduct(s *Server, r *request) (any, error) {
	c, err := productFields(r)
	if err != nil {
		return nil, err
	}
	c.Op = "upsert"
	if _, err := s.call(actors.KindProduct, r.ids[0], c, r); err != nil {
		return nil, err
	}
	return r.ids[0], nil
}

func getProduct(s *Server, r *request) (any, error) {
	reply, err := s.call(actors.KindProduct, r.ids[0], &actors.Call{Op: "get"}, r)
	if err != nil {
		return nil, err
	}
	return reply.Product, nil
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
	ids, failure := s.rt.FreqItems(r.ids[0], top, depth, r.trace)
	if failure != nil {
		return nil, &actorError{failure}
	}
	return ids, nil
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
	if _, err := s.call(actors.KindUser, id, &actors.Call{Op: "create", Credits: credits}, r); err != nil {
		return nil, err
	}
	return id, nil
}

func getUser(s *Server, r *request) (any, error) {
	reply, err := s.call(actors.KindUser, r.ids[0], &actors.Call{Op: "get"}, r)
	if err != nil {
		return nil, err
	}
	return reply.User, nil
}

func addCredits(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	credits, _, err := intField(f, "credits", 1, true)
	if err != nil {
		return nil, err
	}
	_, err = s.call(actors.KindUser, r.ids[0], &actors.Call{Op: "addCredits", Credits: credits}, r)
	return nil, err
}

func createCart(s *Server, r *request) (any, error) {
	id := newID()
	if _, err := s.call(actors.KindCart, id, &actors.Call{Op: "create"}, r); err != nil {
		return nil, err
	}
	return id, nil
}

func getCart(s *Server, r *request) (any, error) {
	reply, err := s.call(actors.KindCart, r.ids[0], &actors.Call{Op: "get"}, r)
	if err != nil {
		return nil, err
	}
	return reply.Cart, nil
}

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
	_, err = s.call(actors.KindCart, r.ids[0], &actors.Call{Op: "add", ProductID: productID, Amount: amount}, r)
	return nil, err
}

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
	reply, err := s.call(actors.KindCart, cartID, &actors.Call{Op: "checkout", UserID: userID}, r)
	if err != nil {
		return nil, err
	}
	return reply.Result, nil
}

func getOrder(s *Server, r *request) (any, error) {
	reply, err := s.call(actors.KindOrder, r.ids[0], &actors.Call{Op: "get"}, r)
	if err != nil {
		return nil, err
	}
	return reply.Order, nil
}
