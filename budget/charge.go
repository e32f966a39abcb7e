package budget

// Charge is what one operator holds of its query's budget: it grows as
// the operator keeps more and Close gives all of it back. Not safe for
// concurrent use: each worker keeps its own. The zero Charge (and one on
// a nil account) accounts nothing.
type Charge struct {
	a  *Account
	op string
	n  int64
}

// NewCharge starts a charge for op ("sort", "hash join build", …), the
// name the budget error gives.
func (a *Account) NewCharge(op string) *Charge { return &Charge{a: a, op: op} }

// Grow charges n more bytes, or returns the account's *ExceededError and
// charges nothing.
func (c *Charge) Grow(n int64) error {
	if c == nil || c.a == nil || n <= 0 {
		return nil
	}
	if err := c.a.Grow(c.op, n); err != nil {
		return err
	}
	c.n += n
	return nil
}

// Fits reports whether n more bytes would fit the query's budget.
func (c *Charge) Fits(n int64) bool { return c == nil || c.a.Fits(n) }

// Held is what the charge holds.
func (c *Charge) Held() int64 {
	if c == nil {
		return 0
	}
	return c.n
}

// Close gives back everything the charge holds; the charge can grow
// again afterwards (an operator that spilled its buffer starts over).
func (c *Charge) Close() {
	if c == nil {
		return
	}
	c.a.Shrink(c.n)
	c.n = 0
}
