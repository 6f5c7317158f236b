/// <reference path="./.sst/platform/config.d.ts" />

/**
 * voxtrail on AWS, one environment per stage: `npx sst deploy --stage NAME`. Production keeps
 * its resources when the stage is removed, and refuses to delete them by accident.
 */
export default $config({
  app(input) {
    const production = input?.stage === "production";
    return {
      name: "voxtrail",
      home: "aws",
      removal: production ? "retain" : "remove",
      protect: production,
    };
  },
  async run() {
    const { storage } = await import("./stacks/storage");
    const { pipeline } = await import("./stacks/pipeline");
    const { bucket } = storage();
    const { stateMachine, outcomeBus } = pipeline({ bucket });
    return { bucket: bucket.name, stateMachine: stateMachine.arn, outcomeBus: outcomeBus.name };
  },
});
