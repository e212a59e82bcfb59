/** Makes an object with next() async-iterable (for await ... of), once per class. */
export function asyncIterable(iterator) {
  const proto = Object.getPrototypeOf(iterator);
  if (!Object.prototype.hasOwnProperty.call(proto, Symbol.asyncIterator)) {
    Object.defineProperty(proto, Symbol.asyncIterator, {
      value() { return this; },
      configurable: true,
    });
  }
  return iterator;
}
