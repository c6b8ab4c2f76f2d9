'use strict';

// The page: draws the tree tree.js builds, only as far as it is expanded (a group's
// children are made when it opens, a page of them at a time), and wires the controls,
// the keyboard and the URL hash to it.

/** Children drawn at once under one group; more come with the "more" row. */
const PAGE_SIZE = 500;

class Viewer {
  constructor(data, state) {
    this.data = data;
    this.state = state;
    this.tree = document.getElementById('tree');
    this.expanded = new Set(state.expand);
    this.root = null;
    this.treemap = null;
  }

  /** The filter of the controls' current values (throws on a bad regular expression). */
  filter() {
    const sections = new Set(this.state.sections === null ? this.defaultSections() : this.state.sections);
    const statuses = new Set(this.state.statuses === null ? STATUS_NAMES : this.state.statuses);
    return new Filter(this.state.filter, sections, statuses);
  }

  /** Every section but those that take no space in the file (a `.sizediff`: every one). */
  defaultSections() {
    const hidden = new Set(this.data.isDiff ? [] : this.data.raw.not_in_file);
    return this.data.raw.section_names.filter((s) => !hidden.has(s));
  }

  /** Rebuilds the tree from the current filter and draws it again, expansions kept. */
  rebuild() {
    const error = document.getElementById('filter-error');
    let filter;
    try {
      filter = this.filter();
      error.textContent = '';
    } catch (e) {
      error.textContent = 'not a regular expression: ' + e.message;
      return;
    }
    this.root = buildTree(this.data, filter, this.state.group);
    for (const id of [...this.expanded]) {
      let g = findGroup(this.root, id);
      if (g.id !== id) continue;
      for (; g !== null; g = g.parent) this.expanded.add(g.id);
    }
    this.tree.replaceChildren(this.item({ group: this.root, size: this.root.size }, true));
    if (this.treemap !== null) {
      const last = this.treemap.group === null ? '' : this.treemap.group.id;
      const g = findGroup(this.root, last);
      this.treemap.show(g.id === last ? g : this.root);
    }
    this.showCounts();
    this.saveHash();
  }

  showCounts() {
    const shown = document.getElementById('shown');
    const r = this.root;
    shown.dataset.shown = String(r.count);
    shown.textContent = `${r.count} of ${this.data.count} symbols shown, ` +
      (this.data.isDiff ? signed(Math.round(r.size)) + ' bytes' : humanSize(Math.round(r.size)));
  }

  /** One row of the tree: a group (drawn open when expanded) or a symbol. */
  item(entry, isRoot) {
    const li = document.createElement('li');
    li.setAttribute('role', 'treeitem');
    const row = document.createElement('div');
    row.className = 'row';
    row.tabIndex = isRoot ? 0 : -1;
    const size = Math.round(entry.size);
    row.dataset.size = String(size);
    const sizeCell = document.createElement('span');
    sizeCell.className = 'size';
    if (this.data.isDiff) {
      sizeCell.textContent = signed(size);
      sizeCell.classList.add(size > 0 ? 'grow' : size < 0 ? 'shrink' : 'same');
    } else {
      sizeCell.textContent = humanSize(size);
    }
    const label = document.createElement('span');
    label.className = 'label';
    const detail = document.createElement('span');
    detail.className = 'detail';
    if (entry.group !== undefined) {
      const g = entry.group;
      row.dataset.id = g.id;
      row.dataset.kind = g.kind;
      row.dataset.count = String(g.count);
      label.textContent = g.label;
      detail.textContent = this.countText(g);
      if (this.data.isDiff) {
        STATUS_NAMES.forEach((s, k) => { row.dataset[s] = String(g.statusCounts[k]); });
      }
      li.setAttribute('aria-expanded', 'false');
      row.title = g.kind === 'root' ? 'all symbols shown' : g.id;
    } else {
      const i = entry.symbol;
      row.dataset.kind = 'symbol';
      row.dataset.count = '1';
      label.textContent = this.data.name(i);
      const status = this.data.status(i);
      if (status !== null) {
        row.dataset.status = status;
        detail.textContent = status;
        label.classList.add(status);
      }
      row.title = `${this.data.name(i)}\n${this.data.section(i)}  ${this.data.path(i) || '(no path)'}`;
      const sym = this.data.raw.symbols;
      if (this.data.isDiff) {
        row.title += `\n${sym.before[i]} → ${sym.after[i]} bytes`;
      } else if (sym.aliases[i] > 1) {
        // Identical code folded: the size is shared, each alias counts its part.
        detail.textContent = `1 of ${sym.aliases[i]} aliases of ${sym.size[i]} bytes`;
      }
    }
    row.append(sizeCell, label, detail);
    li.append(row);
    li.viewerEntry = entry;
    if (entry.group !== undefined && (isRoot || this.expanded.has(entry.group.id))) this.open(li);
    return li;
  }

  countText(g) {
    if (!this.data.isDiff) return `${g.count} symbol${g.count === 1 ? '' : 's'}`;
    const parts = [];
    STATUS_NAMES.forEach((s, k) => { if (g.statusCounts[k] > 0) parts.push(`${g.statusCounts[k]} ${s}`); });
    return parts.join(', ');
  }

  /** Draws a group's children (the first page of them) under its row. */
  open(li) {
    const g = li.viewerEntry.group;
    li.setAttribute('aria-expanded', 'true');
    const ul = document.createElement('ul');
    ul.setAttribute('role', 'group');
    li.append(ul);
    this.expanded.add(g.id);
    this.drawPage(ul, g, 0);
  }

  drawPage(ul, g, start) {
    const items = g.children(this.data);
    const end = Math.min(items.length, start + PAGE_SIZE);
    const frag = document.createDocumentFragment();
    for (let k = start; k < end; k++) frag.append(this.item(items[k], false));
    if (end < items.length) {
      const more = document.createElement('li');
      more.className = 'more';
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = `${items.length - end} more…`;
      button.addEventListener('click', () => {
        more.remove();
        this.drawPage(ul, g, end);
      });
      more.append(button);
      frag.append(more);
    }
    ul.append(frag);
  }

  close(li) {
    const g = li.viewerEntry.group;
    if (g.kind === 'root') return;
    li.setAttribute('aria-expanded', 'false');
    li.querySelector(':scope > ul').remove();
    for (const id of [...this.expanded]) {
      if (id === g.id || id.startsWith(g.id + '/')) this.expanded.delete(id);
    }
  }

  toggle(li) {
    if (li.viewerEntry.group === undefined) return;
    const g = li.viewerEntry.group;
    if (li.getAttribute('aria-expanded') === 'true') {
      this.close(li);
      if (this.treemap !== null && g.parent !== null) this.treemap.showSoon(g.parent);
    } else {
      this.open(li);
      if (this.treemap !== null) this.treemap.showSoon(g);
    }
    this.saveHash();
  }

  saveHash() {
    const state = { ...this.state, expand: [...this.expanded].filter((id) => id !== '').sort() };
    try {
      history.replaceState(null, '', '#' + writeHash(state));
    } catch (e) {
      // Some browsers refuse history changes on file:// pages; the view still works.
    }
  }
}

/** Moves focus between the rows drawn: arrows, Home/End, Enter or Space to toggle. */
function onTreeKey(viewer, event) {
  const row = event.target.closest('.row');
  if (row === null) return;
  const li = row.parentElement;
  const rows = [...viewer.tree.querySelectorAll('.row')];
  const at = rows.indexOf(row);
  const focus = (r) => {
    if (r === null || r === undefined) return;
    row.tabIndex = -1;
    r.tabIndex = 0;
    r.focus();
  };
  const isGroup = li.viewerEntry.group !== undefined;
  const isOpen = li.getAttribute('aria-expanded') === 'true';
  switch (event.key) {
    case 'ArrowDown': focus(rows[at + 1]); break;
    case 'ArrowUp': focus(rows[at - 1]); break;
    case 'Home': focus(rows[0]); break;
    case 'End': focus(rows[rows.length - 1]); break;
    case 'ArrowRight':
      if (isGroup && !isOpen) viewer.toggle(li);
      else if (isOpen) focus(rows[at + 1]);
      break;
    case 'ArrowLeft':
      if (isOpen && li.viewerEntry.group.kind !== 'root') viewer.toggle(li);
      else focus(li.parentElement.closest('li')?.querySelector(':scope > .row'));
      break;
    case 'Enter':
    case ' ':
      viewer.toggle(li);
      break;
    default:
      return;
  }
  event.preventDefault();
}
