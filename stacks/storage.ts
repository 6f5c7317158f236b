/**
 * The stage's bucket: voicemails land under `incoming/`, artifacts, lineage and reports are
 * written beside them. Versioned (lineage names version ids), public access blocked and TLS
 * enforced (sst.aws.Bucket's defaults), and every object event sent to EventBridge, where the
 * pipeline's rule picks the ones it wants.
 */
export function storage() {
  const bucket = new sst.aws.Bucket("Voicemail", { versioning: true, cors: false });
  new aws.s3.BucketNotification("VoicemailEvents", { bucket: bucket.name, eventbridge: true });
  return { bucket };
}
