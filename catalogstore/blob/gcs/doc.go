// Package gcs is the blob.Store over Google Cloud Storage: the production
// backend.
//
// A store is a bucket and a prefix, written gs://bucket/prefix; key k is the
// object "prefix/k". Keys follow blob/local's rules (clean relative slash
// paths, none under ".tmp/"), so data moves between backends unchanged.
//
// Put streams through a storage.Writer: GCS publishes an object only when
// its upload finalises, so readers never see part of one. IfNotExists is the
// precondition ifGenerationMatch=0 (storage.Conditions{DoesNotExist: true}),
// which GCS checks atomically; its 412 becomes blob.ErrExists.
//
// Open makes its own client with storage.NewClient, which honours
// STORAGE_EMULATOR_HOST (for example fake-gcs-server) and then needs no
// credentials; it reads through the JSON API, so an emulator needs no
// public-host setting. NewWithClient shares a client the caller owns
// (make it with storage.WithJSONReads() for the same reads).
package gcs
