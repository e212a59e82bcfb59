// What the package's Rust code reads of a JS value in one call (src/json/tree.rs), and the edits
// it makes a result with in another (src/js/decode/): facts and copies only, every decision is
// Rust's. The tables are Rust's, word for word (tests in tree.rs and edits.rs hold them equal).

const Kind = { Absent: 0, Null: 1, False: 2, True: 3, Number: 4, String: 5, Array: 6, Object: 7, Other: 8, };
const Op = { Field: 1, Delete: 2, NewObject: 3, NewArray: 4, Item: 5, };
const Tag = { Member: 1, Null: 2, False: 3, True: 4, Number: 5, Date: 6, Made: 7, New: 8, Container: 9, };

function kind(v) {
  switch (typeof v) {
    case "undefined": return Kind.Absent;
    case "number": return Kind.Number;
    case "string": return Kind.String;
    case "boolean": return v ? Kind.True : Kind.False;
    case "object": return v === null ? Kind.Null : Array.isArray(v) ? Kind.Array : Kind.Object;
    default: return Kind.Other;
  }
}

/**
 * Reads `root` and every object and array it reaches, each once, into `arrays`: `containers`
 * (a container's id is its position), their `values` (in `Object.keys` order), their `keys`
 * (one array per distinct list of names; arrays: null). Returns the tape: the root's kind and
 * payload, the number of containers, 1 if JSON text of it reads natively too (every number
 * finite, nested at most `maxDepth` deep) else 0, where each container's entry starts, then
 * each entry: its names' id (-1: an array), its number of values, and each value's kind and
 * payload (a number's value, a container's id, or 0).
 */
export function scan(root, arrays, maxDepth) {
  const containers = [];
  const values = [];
  const keys = [];
  arrays.push(containers, values, keys);
  const ids = new Map();
  const namesIds = new Map();
  // The objects of a list usually have the same names: the last list is tried first.
  let lastNames = null;
  let lastId = -1;
  const same = (a, b) => a.length === b.length && a.every((name, i) => name === b[i]);
  const depths = [];
  let readable = 1;
  const idOf = (v, depth) => {
    let id = ids.get(v);
    if (id === undefined) {
      id = containers.length;
      ids.set(v, id);
      containers.push(v);
      depths.push(depth);
      if (depth > maxDepth) readable = 0;
    }
    return id;
  };
  const payload = (v, k, depth) => {
    if (k === Kind.Number && !Number.isFinite(v)) readable = 0;
    return k === Kind.Number ? v : k === Kind.Array || k === Kind.Object ? idOf(v, depth) : 0;
  };
  const rootKind = kind(root);
  const head = [rootKind, payload(root, rootKind, 1)];
  const body = [];
  const starts = [];
  for (let c = 0; c < containers.length; c++) {
    const container = containers[c];
    const depth = depths[c] + 1;
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
      body.push(k, payload(v, k, depth));
    }
  }
  const tape = new Float64Array(4 + starts.length + body.length);
  tape.set(head, 0);
  tape[2] = starts.length;
  tape[3] = readable;
  const base = 4 + starts.length;
  for (let c = 0; c < starts.length; c++) tape[4 + c] = base + starts[c];
  tape.set(body, base);
  return tape;
}

/** The string or number `values[c][i]`, as text. */
export function text(arrays, c, i) {
  return String(arrays[1][c][i]);
}

/**
 * Carries out `edits` (records of six numbers: an op and its operands) on the containers `scan`
 * read and on new ones; returns the value `result` names. A value is a tag and two operands:
 * Member `values[a][b]`, Number a, Date of a ms, Made `made[a]`, New container a, Container a.
 * Ops: Field [target, name, value] sets `made[name]` of a target (container t, or new container
 * -t - 1), Delete [c, key] deletes `keys[c][key]`, NewObject [n], NewArray [n, length], Item
 * [target, index, value].
 */
export function apply(edits, made, arrays, result) {
  const [containers, values, keys] = arrays;
  const fresh = [];
  const value = (tag, a, b) => {
    switch (tag) {
      case Tag.Member: return values[a][b];
      case Tag.Null: return null;
      case Tag.False: return false;
      case Tag.True: return true;
      case Tag.Number: return a;
      case Tag.Date: return new Date(a);
      case Tag.Made: return made[a];
      case Tag.New: return fresh[a];
      default: return containers[a];
    }
  };
  const target = (t) => (t >= 0 ? containers[t] : fresh[-t - 1]);
  for (let i = 0; i < edits.length; i += 6) {
    const a = edits[i + 1];
    const b = edits[i + 2];
    switch (edits[i]) {
      case Op.Field: target(a)[made[b]] = value(edits[i + 3], edits[i + 4], edits[i + 5]); break;
      case Op.Delete: delete containers[a][keys[a][b]]; break;
      case Op.NewObject: fresh[a] = {}; break;
      case Op.NewArray: fresh[a] = new Array(b); break;
      default: target(a)[b] = value(edits[i + 3], edits[i + 4], edits[i + 5]);
    }
  }
  return value(result[0], result[1], result[2]);
}
