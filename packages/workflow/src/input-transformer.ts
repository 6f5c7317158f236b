/** An EventBridge target's input transformer: paths into the event, and the template they fill. */
export interface InputTransformer {
  /** Each placeholder's JSON path into the event (dot notation, as EventBridge supports). */
  inputPaths: Readonly<Record<string, string>>;
  /** The input, with `<name>` for each path's value. */
  inputTemplate: string;
}

/**
 * `event` as a rule's input transformer hands it to the target (EventBridge API reference,
 * "InputTransformer"): each `<name>` of a JSON template replaced by the JSON of the value at its
 * path, `null` for a path the event lacks. Templates that are not JSON are not supported here.
 *
 * @example
 * transformedInput({ inputPaths: { name: "$.detail.name" }, inputTemplate: '{"name":<name>}' }, event); // { name: "..." }
 */
export function transformedInput(transformer: InputTransformer, event: unknown): unknown {
  const text = transformer.inputTemplate.replace(/<([A-Za-z0-9_.-]+)>/g, (placeholder, name: string) => {
    const path = transformer.inputPaths[name];
    if (path === undefined) return placeholder;
    const value = path
      .replace(/^\$\.?/, "")
      .split(".")
      .filter(Boolean)
      .reduce<unknown>((node, field) => (node as Record<string, unknown> | undefined)?.[field], event);
    return JSON.stringify(value ?? null);
  });
  return JSON.parse(text);
}
