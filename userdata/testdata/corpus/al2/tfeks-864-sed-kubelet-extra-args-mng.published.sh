#!/bin/bash -e

# Allow user supplied pre userdata code


sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --register-with-taints=dedicated=ingress:NoSchedule"' /etc/eks/bootstrap.sh
