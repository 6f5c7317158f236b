export * from "./compact-index";
export * from "./index-answers";
export * from "./index-manifest";
export * from "./index-rows";
export * from "./index-sql";
export * from "./index-tables";
export * from "./pending-jobs";
export * from "./vacuum-index";
