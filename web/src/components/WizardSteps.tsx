import Alert from '@mui/material/Alert';
import Paper from '@mui/material/Paper';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

/**
 * The stepper and the current step's panel of the prediction wizards (tables and time series, images): the step's
 * name as its title, what is wrong above its fields. Each wizard places its own buttons; the register wizards use
 * WizardFrame, which brings its buttons too.
 */
export default function WizardSteps({ labels, step, error, panel, children }: { labels: readonly string[]; step: number; error: string; panel: { maxWidth?: number; mb?: number }; children: ReactNode }) {
  return (
    <>
      <Stepper activeStep={step} alternativeLabel sx={{ mb: 3 }}>
        {labels.map((l) => (
          <Step key={l}>
            <StepLabel>{l}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <Paper variant="outlined" sx={{ p: 2.5, ...panel }}>
        <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
          {labels[step]}
        </Typography>
        {error && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {error}
          </Alert>
        )}
        {children}
      </Paper>
    </>
  );
}
