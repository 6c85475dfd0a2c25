/**
 * Where a played run keeps its YAML and state until `downRun`
 * (.sfbench/kube-play/<run id>/). A module of its own: a worker's start-up
 * sweep looks here for a lost run's play without loading the renderer and
 * Pulumi's SDK, which take seconds to load.
 */
import { join } from "node:path";
import { paths } from "@sfbench/services";

export const kubePlayHome = () => join(paths.home, "kube-play");
