/**
 * Groups of records of one person from scored pairs (`link-csv --cluster`): the connected
 * components of the pairs at or above the threshold — a true pair the scorer missed is often
 * reachable through a chain of links — then a group is split where its weakest link is far below
 * the others (one borderline pair joining two people's records would otherwise merge them).
 *
 * Each group is held together by its maximum spanning tree (the strongest links that connect it;
 * any other link between its two sides is no stronger than the tree's weakest one). A tree link is
 * cut when it is the only pair at or above the threshold between two parts of two records or more,
 * and it is weaker than the median of the group's other tree links by more than `gapBits`
 * (log2-odds); each part is then looked at again. A lone record joined by one weak link stays.
 */

export interface ScoredPair {
  readonly i: number;
  readonly j: number;
  /** 0–100. */
  readonly confidence: number;
}

export interface ClusterOptions {
  /** Pairs below this confidence never join records. */
  readonly threshold: number;
  /** How far (log2-odds) a group's weakest link must fall below its other links' median to be cut. */
  readonly gapBits?: number;
}

/** The default gap: a link 2^5 = 32 times less likely to be a match than the group's usual one. */
export const DEFAULT_GAP_BITS = 5;

/** Confidence (0–100) as log2-odds, bounded so 0 and 100 stay finite. */
export function confidenceBits(confidence: number): number {
  const p = Math.min(Math.max(confidence / 100, 1e-6), 1 - 1e-6);
  return Math.log2(p / (1 - p));
}

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, k) => k);
  }
  find(k: number): number {
    let root = k;
    while (this.parent[root] !== root) root = this.parent[root]!;
    for (let at = k; this.parent[at] !== root; ) {
      const next = this.parent[at]!;
      this.parent[at] = root;
      at = next;
    }
    return root;
  }
  union(a: number, b: number): boolean {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra === rb) return false;
    this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
    return true;
  }
}

interface TreeEdge {
  readonly a: number;
  readonly b: number;
  readonly bits: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The records reached from `from` over `edges` (a tree, or a forest). */
function reached(from: number, edges: readonly TreeEdge[]): Set<number> {
  const next = new Map<number, number[]>();
  const link = (x: number, y: number) => {
    const list = next.get(x);
    if (list) list.push(y);
    else next.set(x, [y]);
  };
  for (const e of edges) {
    link(e.a, e.b);
    link(e.b, e.a);
  }
  const side = new Set([from]);
  for (const queue = [from]; queue.length > 0; ) {
    for (const m of next.get(queue.pop()!) ?? []) {
      if (!side.has(m)) {
        side.add(m);
        queue.push(m);
      }
    }
  }
  return side;
}

/**
 * The tree links of one group, cut where the group is two groups held by one link alone: a tree
 * link is cut when no other pair at or above the threshold crosses between its two sides, each
 * side has two records or more, and the link is weaker than the median of the group's other tree
 * links by more than `gapBits`. Each side is then looked at again.
 */
function keptLinks(edges: readonly TreeEdge[], pairs: readonly TreeEdge[], gapBits: number): TreeEdge[] {
  if (edges.length < 3) return [...edges];
  const weakestFirst = [...edges].sort((x, y) => x.bits - y.bits);
  for (const link of weakestFirst) {
    const others = edges.filter((e) => e !== link);
    if (link.bits >= median(others.map((e) => e.bits)) - gapBits) break; // the rest are stronger still
    const side = reached(link.a, others);
    const sizeA = side.size;
    const sizeB = edges.length + 1 - sizeA;
    if (sizeA < 2 || sizeB < 2) continue;
    const crossing = pairs.filter((p) => side.has(p.a) !== side.has(p.b)).length;
    if (crossing > 1) continue;
    const inside = (e: TreeEdge) => side.has(e.a);
    return [
      ...keptLinks(
        others.filter(inside),
        pairs.filter((p) => side.has(p.a) && side.has(p.b)),
        gapBits,
      ),
      ...keptLinks(
        others.filter((e) => !inside(e)),
        pairs.filter((p) => !side.has(p.a) && !side.has(p.b)),
        gapBits,
      ),
    ];
  }
  return [...edges];
}

/**
 * The group of each of `n` records (numbered 0…n−1): group numbers from 1, in the order of each
 * group's first record; a record with no link at or above the threshold is a group of its own.
 */
export function clusterRecords(n: number, pairs: readonly ScoredPair[], options: ClusterOptions): number[] {
  const gapBits = options.gapBits ?? DEFAULT_GAP_BITS;
  const strong = pairs
    .filter((p) => p.confidence >= options.threshold && p.i !== p.j)
    .sort((x, y) => y.confidence - x.confidence || x.i - y.i || x.j - y.j);
  // Kruskal: the strongest links that connect each group.
  const forest = new UnionFind(n);
  const tree: TreeEdge[] = [];
  for (const p of strong) if (forest.union(p.i, p.j)) tree.push({ a: p.i, b: p.j, bits: confidenceBits(p.confidence) });
  const byGroup = new Map<number, { tree: TreeEdge[]; pairs: TreeEdge[] }>();
  const groupOf = (k: number) => {
    const root = forest.find(k);
    const known = byGroup.get(root);
    if (known) return known;
    const group = { tree: [] as TreeEdge[], pairs: [] as TreeEdge[] };
    byGroup.set(root, group);
    return group;
  };
  for (const e of tree) groupOf(e.a).tree.push(e);
  for (const p of strong) groupOf(p.i).pairs.push({ a: p.i, b: p.j, bits: confidenceBits(p.confidence) });
  const groups = new UnionFind(n);
  for (const g of byGroup.values()) for (const e of keptLinks(g.tree, g.pairs, gapBits)) groups.union(e.a, e.b);
  const number = new Map<number, number>();
  return Array.from({ length: n }, (_, k) => {
    const root = groups.find(k);
    if (!number.has(root)) number.set(root, number.size + 1);
    return number.get(root)!;
  });
}
