#!/usr/bin/env node
import { operatorConfig } from '../operator/config.ts';
import { main } from '../operator/main.ts';
import { runBinary } from '../src/config/run-binary.ts';

runBinary('cw-operator', () => main(operatorConfig(process.env)));
