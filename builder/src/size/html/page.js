'use strict';

// Start-up: reads the embedded archive and the URL hash, fills the summary and the
// controls, draws the tree, and (with `measure=1` in the hash) times the first render,
// the opening of the largest groups and a filter, writing the times into #timing.

function showSummary(data) {
  const summary = document.getElementById('summary');
  const f = data.raw.file_size;
  if (data.isDiff) {
    const counts = [0, 0, 0];
    for (const st of data.raw.symbols.status) counts[st] += 1;
    summary.dataset.fileSizeBefore = String(f.before);
    summary.dataset.fileSizeAfter = String(f.after);
    summary.dataset.fileSizeDelta = String(f.after - f.before);
    STATUS_NAMES.forEach((s, k) => { summary.dataset[s] = String(counts[k]); });
    summary.textContent = `File size ${humanSize(f.before)} → ${humanSize(f.after)} ` +
      `(${signed(f.after - f.before)} bytes). Symbols: ${counts[0]} added, ${counts[1]} removed, ` +
      `${counts[2]} changed.`;
  } else {
    summary.dataset.fileSize = String(f);
    summary.textContent = `File size ${humanSize(f)} (${f} bytes), ${data.count} symbols.` +
      (data.raw.not_in_file.length > 0
        ? ` Sections that take no space in the file (${data.raw.not_in_file.join(', ')}) are left out until checked.`
        : '');
  }
}

/** A checkbox per value; `changed` gets the checked values (or null when all are default). */
function checkboxes(fieldset, values, checked, changed) {
  for (const v of values) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = v;
    box.checked = checked.includes(v);
    box.defaultChecked = box.checked;
    box.addEventListener('change', () => {
      changed([...fieldset.querySelectorAll('input:checked')].map((b) => b.value));
    });
    label.append(box, ' ' + v);
    fieldset.append(label);
  }
}

function setUpControls(viewer) {
  const { data, state } = viewer;
  const group = document.getElementById('group');
  group.value = state.group;
  group.addEventListener('change', () => {
    state.group = group.value;
    viewer.expanded = new Set();
    viewer.rebuild();
  });
  const input = document.getElementById('filter');
  input.value = state.filter;
  let timer = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    // Typing a pattern should not rebuild a 100,000-symbol tree at every key.
    timer = setTimeout(() => {
      state.filter = input.value;
      viewer.rebuild();
    }, 200);
  });
  document.getElementById('controls').addEventListener('submit', (e) => e.preventDefault());
  const sections = state.sections === null ? viewer.defaultSections() : state.sections;
  checkboxes(document.getElementById('sections'), data.raw.section_names, sections, (values) => {
    state.sections = values;
    viewer.rebuild();
  });
  if (data.isDiff) {
    const fieldset = document.getElementById('statuses');
    fieldset.hidden = false;
    checkboxes(fieldset, STATUS_NAMES, state.statuses === null ? STATUS_NAMES : state.statuses, (values) => {
      state.statuses = values;
      viewer.rebuild();
    });
  }
  viewer.tree.addEventListener('click', (event) => {
    const row = event.target.closest('.row');
    if (row !== null) viewer.toggle(row.parentElement);
  });
  viewer.tree.addEventListener('keydown', (event) => onTreeKey(viewer, event));
}

/** Milliseconds `action` takes, layout included (reading a size forces it). */
function timed(action) {
  const t0 = performance.now();
  action();
  void document.body.offsetHeight;
  return performance.now() - t0;
}

/** Opens the largest group at every level under the root, then filters: the costly steps. */
function measure(viewer, timing) {
  // One click per level, each timed with the layout it causes.
  const clicks = [];
  let li = viewer.tree.querySelector('li');
  for (;;) {
    const ul = li.querySelector(':scope > ul');
    const first = ul === null ? null : ul.querySelector(':scope > li');
    if (first === null || first.viewerEntry.group === undefined) break;
    clicks.push(timed(() => viewer.toggle(first)));
    li = first;
  }
  timing.dataset.expandMs = clicks.reduce((a, b) => a + b, 0).toFixed(1);
  timing.dataset.expandMaxMs = Math.max(0, ...clicks).toFixed(1);
  timing.dataset.clicks = String(clicks.length);
  timing.dataset.rows = String(viewer.tree.querySelectorAll('.row').length);
  const pattern = new URLSearchParams(location.hash.replace(/^#/, '')).get('measure-filter') || 'a';
  timing.dataset.filterMs = timed(() => {
    viewer.state.filter = pattern;
    viewer.rebuild();
  }).toFixed(1);
  timing.dataset.filteredRows = String(viewer.tree.querySelectorAll('.row').length);
}

function main() {
  const timing = document.getElementById('timing');
  const t0 = performance.now();
  const data = new SizeData(JSON.parse(document.getElementById('size-data').textContent));
  const t1 = performance.now();
  showSummary(data);
  const state = readHash(location.hash);
  const viewer = new Viewer(data, state);
  setUpControls(viewer);
  viewer.treemap = new Treemap(viewer);
  viewer.treemap.box.addEventListener('click', (event) => viewer.treemap.onClick(event));
  viewer.rebuild();
  void document.body.offsetHeight;
  const t2 = performance.now();
  timing.dataset.parseMs = (t1 - t0).toFixed(1);
  timing.dataset.renderMs = (t2 - t1).toFixed(1);
  // From the start of navigation: reading the page, the data and the first drawing.
  timing.dataset.readyMs = t2.toFixed(1);
  if (state.measure) measure(viewer, timing);
  document.body.dataset.ready = '1';
}

main();
