// Package security holds no code of its own: its tests rebuild, one by one,
// the attacks a cloned repository or a hostile peer can mount against baton
// (links planted in the state folder, programs named by a committed config,
// instructions planted in quoted text, secrets in prose, malformed protocol
// messages, oversized identifiers) and fail if any of them works again.
// Each file covers one channel; the fixes live in the packages they name.
package security
