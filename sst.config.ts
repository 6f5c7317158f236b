/// <reference path="./.sst/platform/config.d.ts" />

/**
 * voxtrail on AWS, one environment per stage: `npx sst deploy --stage NAME`, configured by
 * `config/stages/<stage>.json` (stacks/stage-config.ts). Production keeps its resources when the
 * stage is removed, and refuses to delete them by accident.
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
    const { loadStageConfig } = await import("./stacks/stage-config");
    const { storage } = await import("./stacks/storage");
    const { sonicEndpoint } = await import("./stacks/sonic-endpoint");
    const { functionSettings } = await import("./stacks/function-settings");
    const { pipeline } = await import("./stacks/pipeline");
    const { voicemailBatch } = await import("./stacks/voicemail-batch");
    const { prompts } = await import("./stacks/prompts");
    const { observability } = await import("./stacks/observability");
    const { stageParameter } = await import("./stacks/stage-parameter");
    const { lineageSigning } = await import("./stacks/lineage-signing");
    const { lineageIndex } = await import("./stacks/lineage-index");
    const { config } = loadStageConfig($app.stage, $cli.paths.root);
    const { bucket } = storage(config);
    const sonic = sonicEndpoint(config);
    const settings = functionSettings({ bucket, config, sonic });
    const { stateMachine, outcomeBus, functions } = pipeline({ bucket, config, settings });
    const batch = voicemailBatch({
      bucket,
      config,
      settings,
      outcomeBusArn: outcomeBus.arn,
      voicemailStateMachine: stateMachine,
    });
    const ivr = prompts({ bucket, config, settings, outcomeBusArn: outcomeBus.arn });
    const signing = lineageSigning({ bucket, settings });
    const index = lineageIndex({ bucket, settings });
    const { dashboard, topic } = observability({
      config,
      stateMachine,
      workflows: { batch: batch.stateMachine, prompts: ivr.stateMachine },
      functions,
      sonic,
    });
    const parameter = stageParameter({
      bucket,
      voicemailStateMachine: stateMachine,
      promptsStateMachine: ivr.stateMachine,
      batchStateMachine: batch.stateMachine,
      lineageSigningKey: signing.key,
      lineageIndex: index,
    });
    return {
      bucket: bucket.name,
      stateMachine: stateMachine.arn,
      batchStateMachine: batch.stateMachine.arn,
      promptsStateMachine: ivr.stateMachine.arn,
      outcomeBus: outcomeBus.name,
      sonicEndpoint: sonic?.name,
      dashboard: dashboard.dashboardName,
      alarmTopic: topic.arn,
      stageParameter: parameter.name,
      lineageSigningKey: signing.key.arn,
      lineageIndexDatabase: index.database.name,
      lineageIndexWorkgroup: index.workgroup.name,
      lineageIndexReaderPolicy: index.readerPolicy.arn,
    };
  },
});
