// The entry Pulumi's Node.js language host loads when it runs this folder as a policy pack (PulumiPolicy.yaml): the
// pack itself is policy/pack.ts, compiled into dist/policy/ (this folder ships only this file and PulumiPolicy.yaml).
import "../dist/policy/pack.js";
