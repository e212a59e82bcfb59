// What the package's Rust code reads of a JS value (a JSON.parse tree, an options object) in
// one call, and the edits it makes a result with in another (src/json.rs). Facts and copies
// only: which members a result keeps, renames, drops or adds is decided in Rust, by core's rules.

/** The kind codes of src/json.rs `Kind`. */
function kind(v) {
  switch (typeof v) {
    case "undefined": return 0;
    case "number": return 4;
    case "string": return 5;
    case "boolean": return v ? 3 : 2;
    case "object": return v === null ? 1 : Array.isArray(v) ? 6 : 7;
    default: return 8;
  }
}

/**
 * Reads `root` and every object and array it reaches, each once: `containers` gets them (a
 * container's id is its position), `values` their values (an object's in `Object.keys` order,
 * an array's items), `keys` each one's member names (one array per distinct list of names;
 * arrays: null). Returns the tape: the root's kind and payload, the number of containers, the
 * position of each one's entry, then each entry: its names' id (-1 for an array), its number
 * of values, and per value its kind and payload (a number's value, a container's id, or 0).
 */
export function scan(root, containers, values, keys) {
  const ids = new Map();
  const namesIds = new Map();
  // The objects of a list usually have the same names: the last list is tried first.
  let lastNames = null;
  let lastId = -1;
  const same = (a, b) => {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  };
  const idOf = (v) => {
    let id = ids.get(v);
    if (id === undefined) {
      id = containers.length;
      ids.set(v, id);
      containers.push(v);
    }
    return id;
  };
  const payload = (v, k) => (k === 4 ? v : k === 6 || k === 7 ? idOf(v) : 0);
  const rootKind = kind(root);
  const head = [rootKind, payload(root, rootKind)];
  const body = [];
  const starts = [];
  for (let c = 0; c < containers.length; c++) {
    const container = containers[c];
    starts.push(body.length);
    let own;
    if (Array.isArray(container)) {
      own = container;
      keys.push(null);
      body.push(-1);
    } else {
      let names = Object.keys(container);
      own = Object.values(container);
      let namesId;
      if (lastNames !== null && same(names, lastNames)) {
        names = lastNames;
        namesId = lastId;
      } else {
        const text = JSON.stringify(names);
        namesId = namesIds.get(text);
        if (namesId === undefined) {
          namesId = namesIds.size;
          namesIds.set(text, namesId);
        }
        lastNames = names;
        lastId = namesId;
      }
      keys.push(names);
      body.push(namesId);
    }
    values.push(own);
    body.push(own.length);
    for (const v of own) {
      const k = kind(v);
      body.push(k, payload(v, k));
    }
  }
  const tape = new Float64Array(3 + starts.length + body.length);
  tape.set(head, 0);
  tape[2] = starts.length;
  const base = 3 + starts.length;
  for (let c = 0; c < starts.length; c++) tape[3 + c] = base + starts[c];
  tape.set(body, base);
  return tape;
}

/** The string or number `values[c][i]`, as text. */
export function text(values, c, i) {
  return String(values[c][i]);
}

/**
 * Carries out `edits` (records of six numbers) on the containers `scan` read and on new ones,
 * and returns the value `result` (kind, a, b) names. A value is: 1 `values[a][b]`, 2 null,
 * 3 false, 4 true, 5 the number a, 6 a Date of a milliseconds, 7 `made[a]`, 8 new container a,
 * 9 container a. Records: [1, target, name, value...] sets `fieldNames[name]` of a target (a
 * container, or new container -target - 1), [2, c, key] deletes member `keys[c][key]`,
 * [3, n] makes new object n, [4, n, length] new array n, [5, target, index, value...] sets an item.
 */
export function apply(edits, made, containers, values, keys, fieldNames, result) {
  const fresh = [];
  const value = (k, a, b) => {
    switch (k) {
      case 1: return values[a][b];
      case 2: return null;
      case 3: return false;
      case 4: return true;
      case 5: return a;
      case 6: return new Date(a);
      case 7: return made[a];
      case 8: return fresh[a];
      default: return containers[a];
    }
  };
  const target = (t) => (t >= 0 ? containers[t] : fresh[-t - 1]);
  for (let i = 0; i < edits.length; i += 6) {
    switch (edits[i]) {
      case 1: target(edits[i + 1])[fieldNames[edits[i + 2]]] = value(edits[i + 3], edits[i + 4], edits[i + 5]); break;
      case 2: delete containers[edits[i + 1]][keys[edits[i + 1]][edits[i + 2]]]; break;
      case 3: fresh[edits[i + 1]] = {}; break;
      case 4: fresh[edits[i + 1]] = new Array(edits[i + 2]); break;
      default: target(edits[i + 1])[edits[i + 2]] = value(edits[i + 3], edits[i + 4], edits[i + 5]);
    }
  }
  return value(result[0], result[1], result[2]);
}
