#!/bin/bash
set -e
B64_CLUSTER_CA=LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=
API_SERVER_URL=https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com
/etc/eks/bootstrap.sh ex-outpost --enable-local-outpost true --cluster-id 0123abcd-4567-89ef-0123-456789abcdef --container-runtime containerd
 --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint $API_SERVER_URL \
  --ip-family ipv4 --service-ipv4-cidr 172.20.0.0/16
