/**
 * Makes an object with next() async-iterable (for await ... of), once per class. Calls of
 * next() made before the previous one settled wait for it, so each gets the next item in turn,
 * as the async iterator protocol asks.
 */
export function asyncIterable(iterator) {
  const proto = Object.getPrototypeOf(iterator);
  if (!Object.prototype.hasOwnProperty.call(proto, Symbol.asyncIterator)) {
    const next = proto.next;
    const last = new WeakMap();
    Object.defineProperty(proto, "next", {
      value() {
        const step = () => next.call(this);
        const result = (last.get(this) || Promise.resolve()).then(step, step);
        last.set(this, result);
        return result;
      },
      configurable: true,
      writable: true,
    });
    Object.defineProperty(proto, Symbol.asyncIterator, {
      value() { return this; },
      configurable: true,
    });
  }
  return iterator;
}
