// The module root of the control plane's mains. Each build names the modfile of one minor
// (minors/vX.Y.mod, with its .sum beside it): one set of mains, one pinned dependency graph per minor.
module kube-extender.test/controlplane

go 1.26.0
