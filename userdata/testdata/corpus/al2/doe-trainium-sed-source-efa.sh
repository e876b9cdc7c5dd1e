#!/bin/bash
set -e
cat <<-EOF > /etc/profile.d/bootstrap.sh
#!/bin/sh

# Configure NVMe volumes in RAID0 configuration
# https://github.com/awslabs/amazon-eks-ami/blob/056e31f8c7477e893424abce468cb32bbcd1f079/files/bootstrap.sh#L35C121-L35C126
# Mount will be: /mnt/k8s-disks
export LOCAL_DISKS='raid0'

# Install Neuron monitoring tools
yum install aws-neuronx-tools-2.* -y
export PATH=/opt/aws/neuron/bin:$PATH

# EFA Setup for Trainium and Inferentia
export FI_EFA_USE_DEVICE_RDMA=1
export FI_PROVIDER=efa
export FI_EFA_FORK_SAFE=1

curl -O https://efa-installer.amazonaws.com/aws-efa-installer-latest.tar.gz
tar -xf aws-efa-installer-latest.tar.gz && cd aws-efa-installer
./efa_installer.sh -y -g
/opt/amazon/efa/bin/fi_info -p efa
EOF

# Source extra environment variables in bootstrap script
sed -i '/^set -o errexit/a\\nsource /etc/profile.d/bootstrap.sh' /etc/eks/bootstrap.sh
B64_CLUSTER_CA=LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=
API_SERVER_URL=https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com
/etc/eks/bootstrap.sh trainium-inferentia  --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint $API_SERVER_URL \
  --ip-family ipv4 --service-ipv4-cidr 172.20.0.0/16
