// Package faultblob wraps a blob.Store to inject errors, in the manner of
// Pebble's vfs/errorfs, for tests of refused commits and killed writers.
//
// Before each operation the wrapper asks an Injector, with the operation's
// kind and key; a non-nil answer is returned instead of running it. After a
// successful operation it asks again (Phase After), so a test can make an
// operation take effect and still fail, as when a writer dies before it
// hears the answer:
//
//	inj := faultblob.Any(
//		faultblob.FailPutsMatching("/manifest-"),           // the commit's manifest write is refused
//		faultblob.BeforeOp(faultblob.OpPut, "/data/", kill), // kill runs just before each data file write
//	)
//	s := faultblob.Wrap(local, inj)
//
// The wrapper hides the wrapped store's optional extras (such as
// local.Store.LocalPath), so every read goes through the injector.
package faultblob
