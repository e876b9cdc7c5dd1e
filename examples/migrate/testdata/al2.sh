MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="==BOUNDARY=="

--==BOUNDARY==
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
exec > >(tee /var/log/user-data.log | logger -t user-data -s 2>/dev/console) 2>&1
sysctl -w vm.max_map_count=262144
sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --image-gc-high-threshold=90 --image-gc-low-threshold=70"' /etc/eks/bootstrap.sh
/etc/eks/bootstrap.sh my-cluster \
  --apiserver-endpoint https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com \
  --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo= \
  --dns-cluster-ip 10.100.0.10 \
  --container-runtime containerd \
  --use-max-pods false \
  --kubelet-extra-args '--node-labels=team=web,tier=frontend --register-with-taints=karpenter.sh/unregistered:NoExecute,team=web:NoSchedule --max-pods=58'

--==BOUNDARY==--
