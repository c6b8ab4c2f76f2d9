'use strict';

// The model of the size viewer: the embedded archive, the filters, and the tree of
// groups (component, directories, file, section) and symbols built from both. Nothing
// here touches the page; view.js draws what this builds.

/** Sizes in bloaty's units, as `symblob size show` prints them. */
function humanSize(bytes) {
  const sign = bytes < 0 ? '-' : '';
  const b = Math.abs(bytes);
  if (b < 1024) return String(bytes);
  let v;
  let unit;
  if (b < 1024 * 1024) {
    v = b / 1024;
    unit = 'Ki';
  } else if (b < 1024 * 1024 * 1024) {
    v = b / (1024 * 1024);
    unit = 'Mi';
  } else {
    v = b / (1024 * 1024 * 1024);
    unit = 'Gi';
  }
  const digits = v < 10 ? 2 : v < 100 ? 1 : 0;
  return sign + v.toFixed(digits) + unit;
}

/** A signed byte count: `+69`, `-122`, `+0`. */
function signed(bytes) {
  return (bytes < 0 ? '' : '+') + bytes;
}

/** What a diff symbol's status code (in the data) means. */
const STATUS_NAMES = ['added', 'removed', 'changed'];

/**
 * The archive as the page embeds it, with the per-path pieces computed once: the
 * directory parts of every path, and each symbol's size as the tree sums it (its share
 * of its alias group for a `.size`, after − before for a `.sizediff`).
 */
class SizeData {
  constructor(raw) {
    this.raw = raw;
    this.isDiff = raw.kind === 'sizediff';
    const s = raw.symbols;
    this.count = s.name.length;
    this.pathParts = raw.paths.map((p) => (p === '' ? null : p.split('/').filter((x) => x !== '')));
    this.hasComponents = raw.components.some((c) => c !== '');
    const value = new Float64Array(this.count);
    for (let i = 0; i < this.count; i++) {
      value[i] = this.isDiff ? s.after[i] - s.before[i] : s.size[i] / Math.max(1, s.aliases[i]);
    }
    this.value = value;
  }

  name(i) {
    return this.raw.symbols.name[i];
  }

  section(i) {
    return this.raw.section_names[this.raw.symbols.section[i]];
  }

  path(i) {
    return this.raw.paths[this.raw.symbols.path[i]];
  }

  status(i) {
    return this.isDiff ? STATUS_NAMES[this.raw.symbols.status[i]] : null;
  }
}

/** A group of the tree (the root, a component, a directory, a file or a section). */
class Group {
  constructor(label, id, kind, parent) {
    this.label = label;
    this.id = id;
    this.kind = kind;
    this.parent = parent;
    this.size = 0;
    this.count = 0;
    this.statusCounts = [0, 0, 0];
    this.groups = new Map();
    this.symbols = [];
    this.sorted = null;
  }

  child(label, kind) {
    let g = this.groups.get(label);
    if (g === undefined) {
      g = new Group(label, this.id === '' ? label : this.id + '/' + label, kind, this);
      this.groups.set(label, g);
    }
    return g;
  }

  /** Groups and symbols (as indices) together, largest first (by magnitude for a diff). */
  children(data) {
    if (this.sorted === null) {
      const items = [];
      for (const g of this.groups.values()) items.push({ group: g, size: g.size, label: g.label });
      for (const i of this.symbols) items.push({ symbol: i, size: data.value[i], label: data.name(i) });
      items.sort((a, b) => Math.abs(b.size) - Math.abs(a.size) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
      this.sorted = items;
    }
    return this.sorted;
  }

  childCount() {
    return this.groups.size + this.symbols.length;
  }
}

/** Which symbols count: a regular expression on names and paths, sections, statuses. */
class Filter {
  constructor(pattern, sections, statuses) {
    this.pattern = pattern;
    this.regex = pattern === '' ? null : new RegExp(pattern);
    this.sections = sections;
    this.statuses = statuses;
    // Many symbols share a path: each path is tested once (path index → match).
    this.pathMatches = new Map();
  }

  accepts(data, i) {
    if (!this.sections.has(data.section(i))) return false;
    if (data.isDiff && !this.statuses.has(data.status(i))) return false;
    if (this.regex === null) return true;
    if (this.regex.test(data.name(i))) return true;
    const p = data.raw.symbols.path[i];
    let m = this.pathMatches.get(p);
    if (m === undefined) {
      m = this.regex.test(data.path(i));
      this.pathMatches.set(p, m);
    }
    return m;
  }
}

/** The labels from the root to a symbol's group, by the grouping chosen. */
function groupPath(data, i, grouping) {
  const levels = [];
  if (data.hasComponents) {
    const c = data.raw.components[data.raw.symbols.component[i]];
    levels.push([c === '' ? '(no component)' : c, 'component']);
  }
  const parts = data.pathParts[data.raw.symbols.path[i]];
  const pathLevels = [];
  if (parts === null || parts.length === 0) {
    pathLevels.push(['(no path)', 'file']);
  } else {
    for (let k = 0; k < parts.length; k++) {
      pathLevels.push([parts[k], k + 1 === parts.length ? 'file' : 'dir']);
    }
  }
  const section = [data.section(i), 'section'];
  if (grouping === 'section') {
    levels.push(section, ...pathLevels);
  } else {
    levels.push(...pathLevels, section);
  }
  return levels;
}

/**
 * The tree of the symbols `filter` accepts, with sizes, counts and statuses summed.
 * Symbols of one (component, path, section) share their group, found once per build.
 */
function buildTree(data, filter, grouping) {
  const root = new Group('(total)', '', 'root', null);
  const sym = data.raw.symbols;
  const nPaths = data.raw.paths.length;
  const nSections = data.raw.section_names.length;
  const leaves = new Map();
  for (let i = 0; i < data.count; i++) {
    if (!filter.accepts(data, i)) continue;
    const key = (sym.component[i] * nPaths + sym.path[i]) * nSections + sym.section[i];
    let leaf = leaves.get(key);
    if (leaf === undefined) {
      leaf = root;
      for (const [label, kind] of groupPath(data, i, grouping)) leaf = leaf.child(label, kind);
      leaves.set(key, leaf);
    }
    leaf.symbols.push(i);
    const v = data.value[i];
    const st = data.isDiff ? sym.status[i] : -1;
    for (let g = leaf; g !== null; g = g.parent) {
      g.size += v;
      g.count += 1;
      if (st >= 0) g.statusCounts[st] += 1;
    }
  }
  return root;
}

/**
 * The group an id names (labels joined by `/`), or the deepest group on the way when
 * the rest names none. Labels may hold `/` themselves (a component), so each step takes
 * the child whose label the rest of the id starts with.
 */
function findGroup(root, id) {
  let g = root;
  let rest = id;
  while (rest !== '') {
    let next = null;
    for (const [label, child] of g.groups) {
      if (rest === label || rest.startsWith(label + '/')) {
        if (next === null || label.length > next.label.length) next = child;
      }
    }
    if (next === null) return g;
    g = next;
    rest = rest.length === next.label.length ? '' : rest.slice(next.label.length + 1);
  }
  return g;
}

/** The state a URL hash holds: `#group=…&filter=…&section=…&status=…&expand=…`. */
function readHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  return {
    group: p.get('group') === 'section' ? 'section' : 'path',
    filter: p.get('filter') || '',
    sections: p.has('section') ? p.getAll('section') : null,
    statuses: p.has('status') ? p.getAll('status') : null,
    expand: p.getAll('expand'),
    measure: p.get('measure') === '1',
  };
}

/** The URL hash of a state (what readHash reads back); sections only when not default. */
function writeHash(state) {
  const p = new URLSearchParams();
  if (state.group !== 'path') p.set('group', state.group);
  if (state.filter !== '') p.set('filter', state.filter);
  if (state.sections !== null) for (const s of state.sections) p.append('section', s);
  if (state.statuses !== null) for (const s of state.statuses) p.append('status', s);
  for (const id of state.expand) p.append('expand', id);
  return p.toString();
}
