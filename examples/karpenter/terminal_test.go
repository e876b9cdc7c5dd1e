package karpenter_test

import "sigs.k8s.io/controller-runtime/pkg/reconcile"

// terminalError is controller-runtime's TerminalError, which errors.Is
// matches for any terminal error.
func terminalError() error { return reconcile.TerminalError(nil) }
