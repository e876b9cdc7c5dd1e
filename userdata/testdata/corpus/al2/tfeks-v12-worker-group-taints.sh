#!/bin/bash -xe

# Allow user supplied pre userdata code


# Bootstrap and join the cluster
/etc/eks/bootstrap.sh --b64-cluster-ca 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=' --apiserver-endpoint 'https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com'  --kubelet-extra-args "--node-labels=function=data_only --register-with-taints=function=data_only:NoSchedule" 'ex-cluster'

# Allow user supplied userdata code

