#!/bin/bash
set -o xtrace
/etc/eks/bootstrap.sh ex-cluster --container-runtime containerd --kubelet-extra-args '--image-gc-high-threshold=50 --image-gc-low-threshold=40  --minimum-container-ttl-duration=0s'