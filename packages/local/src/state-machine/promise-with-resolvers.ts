// aws-local-stepfunctions 3 calls Promise.withResolvers, which Node 20 lacks (Node 22 has it).
// Installed once, only where missing, with the standard semantics.
declare global {
  interface PromiseConstructor {
    withResolvers?: unknown;
  }
}

if (typeof Promise.withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
