package nodeclass

// InstanceStorePolicy is what to do with a node's instance-store (NVMe)
// disks, EC2NodeClass spec.instanceStorePolicy. The zero value leaves them
// alone.
type InstanceStorePolicy string

// RAID0 makes one RAID-0 array of every instance-store disk and puts the
// kubelet's and containerd's state on it.
const RAID0 InstanceStorePolicy = "RAID0"
