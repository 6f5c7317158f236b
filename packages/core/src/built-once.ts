/**
 * A value built on first use and reused while the process (a Lambda execution environment, a
 * client's owner) lives. A build that fails is not kept: the next call builds again (a transient
 * failure at start-up, an AccessDenied later fixed, must not fail every later call). Concurrent
 * calls share one build.
 *
 * @example
 * const handlers = builtOnce(() => lambdaDependencies().then(createStageHandlers));
 * (await handlers())[fn](event, context);
 */
export function builtOnce<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => {
    built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
}
