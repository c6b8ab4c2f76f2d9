'use strict';

// The treemap above the tree: the children of the group opened last, as rectangles whose
// areas are their sizes (their changes, for a diff), laid out by the squarified rule of
// Bruls, Huizing and van Wijk so that rectangles stay near square and labels readable.

/** Rectangles drawn at most; the smaller rest becomes one "others" rectangle. */
const TREEMAP_MAX_ITEMS = 150;

/** How far a row of areas along `side` is from square: its worst aspect ratio. */
function worstRatio(row, sum, side) {
  let max = 0;
  let min = Infinity;
  for (const a of row) {
    max = Math.max(max, a);
    min = Math.min(min, a);
  }
  const s2 = sum * sum;
  const side2 = side * side;
  return Math.max((side2 * max) / s2, s2 / (side2 * min));
}

/**
 * Lays out `values` (positive, largest first) in a `w` × `h` box: one {x, y, w, h} per
 * value, in order.
 */
function squarify(values, w, h) {
  const total = values.reduce((a, b) => a + b, 0);
  const out = [];
  if (total <= 0 || w <= 0 || h <= 0) return out;
  const scale = (w * h) / total;
  const box = { x: 0, y: 0, w, h };
  let row = [];
  let rowSum = 0;
  const place = () => {
    if (box.w >= box.h) {
      const width = rowSum / box.h;
      let y = box.y;
      for (const a of row) {
        out.push({ x: box.x, y, w: width, h: a / width });
        y += a / width;
      }
      box.x += width;
      box.w -= width;
    } else {
      const height = rowSum / box.w;
      let x = box.x;
      for (const a of row) {
        out.push({ x, y: box.y, w: a / height, h: height });
        x += a / height;
      }
      box.y += height;
      box.h -= height;
    }
    row = [];
    rowSum = 0;
  };
  for (const v of values) {
    const a = v * scale;
    const side = Math.min(box.w, box.h);
    if (row.length > 0 && worstRatio([...row, a], rowSum + a, side) > worstRatio(row, rowSum, side)) {
      place();
    }
    row.push(a);
    rowSum += a;
  }
  if (row.length > 0) place();
  return out;
}

class Treemap {
  constructor(viewer) {
    this.viewer = viewer;
    this.box = document.getElementById('treemap');
    this.title = document.getElementById('treemap-title');
    this.group = null;
    this.pending = undefined;
  }

  /**
   * Shows `group` at the next frame, after the tree has been drawn: a click opens its
   * row at once, and clicks faster than frames draw the treemap once.
   */
  showSoon(group) {
    const first = this.pending === undefined;
    this.pending = group;
    if (first) {
      requestAnimationFrame(() => {
        const g = this.pending;
        this.pending = undefined;
        this.show(g);
      });
    }
  }

  /** Shows the children of `group` (a tree.js Group). */
  show(group) {
    this.group = group;
    const data = this.viewer.data;
    const items = group.children(data).filter((c) => Math.abs(c.size) >= 0.5);
    const shown = items.slice(0, TREEMAP_MAX_ITEMS);
    const rest = items.slice(TREEMAP_MAX_ITEMS).reduce((a, c) => a + Math.abs(c.size), 0);
    const values = shown.map((c) => Math.abs(c.size));
    if (rest > 0) values.push(rest);
    const width = this.box.clientWidth;
    const height = this.box.clientHeight;
    const rects = squarify(values, width, height);
    this.title.textContent = group.kind === 'root' ? 'Treemap of everything shown' : `Treemap of ${group.id}`;
    const frag = document.createDocumentFragment();
    rects.forEach((r, k) => {
      const cell = document.createElement('div');
      cell.className = 'cell';
      cell.style.left = `${r.x}px`;
      cell.style.top = `${r.y}px`;
      cell.style.width = `${Math.max(0, r.w - 1)}px`;
      cell.style.height = `${Math.max(0, r.h - 1)}px`;
      const item = shown[k];
      let label;
      let size;
      if (item === undefined) {
        label = `${items.length - shown.length} others`;
        size = rest;
        cell.classList.add('others');
      } else {
        label = item.group !== undefined ? item.group.label : data.name(item.symbol);
        size = Math.round(item.size);
        if (item.group !== undefined) cell.dataset.id = item.group.id;
        if (data.isDiff) cell.classList.add(size > 0 ? 'grow' : 'shrink');
        else cell.classList.add(item.group !== undefined ? 'group' : 'symbol');
      }
      const sizeText = data.isDiff && item !== undefined ? signed(size) : humanSize(Math.round(size));
      cell.title = `${label}\n${sizeText}`;
      if (r.w > 40 && r.h > 16) cell.textContent = `${label} ${sizeText}`;
      frag.append(cell);
    });
    this.box.replaceChildren(frag);
  }

  /** A click on a group's rectangle opens that group in the tree. */
  onClick(event) {
    const cell = event.target.closest('.cell');
    if (cell === null || cell.dataset.id === undefined) return;
    const row = this.viewer.tree.querySelector(`.row[data-id="${CSS.escape(cell.dataset.id)}"]`);
    if (row === null) return;
    const li = row.parentElement;
    if (li.getAttribute('aria-expanded') !== 'true') this.viewer.toggle(li);
    else this.show(li.viewerEntry.group);
    row.scrollIntoView({ block: 'nearest' });
    row.focus();
  }
}
