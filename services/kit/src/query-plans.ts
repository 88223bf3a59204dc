import type { Model } from 'mongoose';

// biome-ignore lint/suspicious/noExplicitAny: a plan of any repository's model
type AnyModel = Model<any>;

/** A read as a repository makes it (see each repository's exported queries). */
export interface PlannedQuery {
  filter: Record<string, unknown>;
  sort?: Record<string, 1 | -1>;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

/** How the store plans a read or a count. */
export interface QueryPlan {
  store: 'ferretdb' | 'mongodb';
  /** Every table or collection the read touches is read through an index (no full scan). */
  indexed: boolean;
  /** FerretDB (our build): the filter became SQL, and exactly the filter; the sort and the limit too. */
  filterPushed?: boolean;
  exact?: boolean;
  sortPushed?: boolean;
  limitPushed?: boolean;
  /** FerretDB (our build): the count is computed by SQL (no document is read). */
  counted?: boolean;
  /** The plan as the store tells it, for messages. */
  plan: string;
}

type Explained = Record<string, unknown> & {
  queryPlanner?: Record<string, unknown> & {
    Plan?: string[];
    nradSQL?: string;
    nradExact?: boolean;
    nradCount?: boolean;
  };
  filterPushdown?: boolean;
  sortPushdown?: boolean;
  limitPushdown?: boolean;
  ferretdbVersion?: string;
  serverInfo?: { ferretdbVersion?: string };
};

/** The filter as the model would send it (schema casts applied), so the plan is the one it runs. */
function castFilter(model: AnyModel, filter: Record<string, unknown>): Record<string, unknown> {
  return model.find(filter).cast() as Record<string, unknown>;
}

function summarize(explained: Explained): QueryPlan {
  const isFerret = explained.ferretdbVersion !== undefined || explained.serverInfo?.ferretdbVersion !== undefined;
  if (isFerret) {
    const lines = explained.queryPlanner?.Plan ?? [];
    // SQLite's plan: every table read is a SEARCH or a SCAN through an index, never a bare SCAN.
    const reads = lines.map((l) => /detail=((?:SEARCH|SCAN) .*)$/.exec(l)?.[1]).filter((d): d is string => !!d);
    const indexed = reads.length > 0 && reads.every((d) => /^(SEARCH|SCAN) \S+ USING /.test(d));
    return {
      store: 'ferretdb',
      indexed,
      filterPushed: explained.filterPushdown === true,
      exact: explained.queryPlanner?.nradExact === true,
      sortPushed: explained.sortPushdown === true,
      limitPushed: explained.limitPushdown === true,
      counted: explained.queryPlanner?.nradCount === true,
      plan: `${explained.queryPlanner?.nradSQL ?? ''}\n${lines.join('\n')}`,
    };
  }
  const plan = JSON.stringify(explained.queryPlanner ?? explained);
  const indexed = /IXSCAN|IDHACK|EXPRESS_/.test(plan) && !/COLLSCAN/.test(plan);
  return { store: 'mongodb', indexed, plan };
}

/** How the store plans a find (with its sort, limit and projection). */
export async function planOf(model: AnyModel, q: PlannedQuery): Promise<QueryPlan> {
  const db = model.db.db;
  if (!db) throw new Error('not connected');
  const explained = (await db.command({
    explain: {
      find: model.collection.collectionName,
      filter: castFilter(model, q.filter),
      ...(q.sort ? { sort: q.sort } : {}),
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(q.projection ? { projection: q.projection } : {}),
    },
    verbosity: 'queryPlanner',
  })) as Explained;
  return summarize(explained);
}

/** How the store plans `countDocuments(filter)` (an aggregation of $match and $group). */
export async function countPlanOf(model: AnyModel, filter: Record<string, unknown>): Promise<QueryPlan> {
  const db = model.db.db;
  if (!db) throw new Error('not connected');
  const explained = (await db.command({
    explain: {
      aggregate: model.collection.collectionName,
      pipeline: [{ $match: castFilter(model, filter) }, { $group: { _id: 1, n: { $sum: 1 } } }],
      cursor: {},
    },
    verbosity: 'queryPlanner',
  })) as Explained;
  // MongoDB answers an aggregation's explain with its stages.
  const stage = (explained.stages as Array<{ $cursor?: Explained }> | undefined)?.[0]?.$cursor;
  return summarize(stage ? { ...stage, serverInfo: explained.serverInfo as Explained['serverInfo'] } : explained);
}
