import { Command } from 'commander';
import { DESIGN_IDS } from '../config.js';
import { addAdviseCommand } from './advise-command.js';
import { addFleetCommand } from './fleet-command.js';
import { addReplayCommand } from './replay-command.js';
import { addServeCommand } from './serve-command.js';
import { addSidecarCommand } from './sidecar-command.js';
import { addSimCommand } from './sim-command.js';
import { addStudyCommands } from './study-command.js';
import { addValidateCommand } from './validate-command.js';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('fleetlimit')
    .description(`One rate limit shared by K gateways. Designs: ${DESIGN_IDS.join(', ')}.`)
    .version('0.1.0')
    .showHelpAfterError();
  addSimCommand(program);
  addStudyCommands(program);
  addAdviseCommand(program);
  addServeCommand(program);
  addFleetCommand(program);
  addValidateCommand(program);
  addSidecarCommand(program);
  addReplayCommand(program);
  return program;
}
