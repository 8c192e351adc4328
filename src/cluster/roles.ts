// The roles of one process in a cluster (issue 24, docs/scale.md "Roles and configuration"), read from
// `cluster.role`: `all` is the all-in-one service; otherwise any combination of api, search and worker.
export interface ClusterRoles {
  all: boolean;
  api: boolean;
  search: boolean;
  worker: boolean;
}

export function clusterRoles(cluster: { role: string }): ClusterRoles {
  const parts = new Set(cluster.role.split(',').map((x) => x.trim()));
  if (parts.has('all')) return { all: true, api: true, search: false, worker: true };
  return { all: false, api: parts.has('api'), search: parts.has('search'), worker: parts.has('worker') };
}
