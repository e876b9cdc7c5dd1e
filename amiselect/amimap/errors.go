package amimap

import "errors"

// ErrNoCompatibleAMI: no instance type can run any selected AMI
// ([*NoCompatibleAMIError]).
var ErrNoCompatibleAMI = errors.New("amiselect: no instance type can run any selected AMI")

// Is matches [ErrNoCompatibleAMI].
func (e *NoCompatibleAMIError) Is(target error) bool { return target == ErrNoCompatibleAMI }
