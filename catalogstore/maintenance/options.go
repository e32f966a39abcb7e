package maintenance

import "time"

// Option tunes a maintenance operation.
type Option func(*options)

type options struct {
	purgeGrace time.Duration
	leaseTTL   time.Duration
	deep       bool
}

func buildOptions(opts []Option) options {
	o := options{purgeGrace: DefaultPurgeGrace, leaseTTL: DefaultLeaseTTL}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithPurgeGrace sets how long Expire keeps a tombstoned snapshot document
// before purging it (DefaultPurgeGrace).
func WithPurgeGrace(d time.Duration) Option { return func(o *options) { o.purgeGrace = d } }

// WithLeaseTTL sets the TTL of the maintenance lease the operation takes
// (DefaultLeaseTTL).
func WithLeaseTTL(d time.Duration) Option { return func(o *options) { o.leaseTTL = d } }

// Deep has Verify also read every referenced data file whole and compare
// its checksum with the one its manifest entry records (fsck --deep,
// CALL verify('c.t', 'deep')).
func Deep() Option { return func(o *options) { o.deep = true } }
