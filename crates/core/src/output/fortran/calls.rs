//! The calls of a construct's events with the values they pass, and what
//! the unit they are inserted into must declare for them.

use super::renderer::Renderer;
use super::renderer::UnitNeeds;
use crate::rules::{Arg, Call, Region, Var, MAX_THREADS_VAR};

impl Renderer<'_> {
    fn arg(&self, region: &Region, arg: &Arg) -> String {
        match arg {
            Arg::Handle => region.handle.clone(),
            Arg::Ctc => format!("pomp2_ctc_{}", region.id),
            Arg::OldTask | Arg::OldTaskRef => "pomp2_old_task".into(),
            Arg::NewTask | Arg::NewTaskRef => "pomp2_new_task".into(),
            Arg::If => "pomp2_if".into(),
            Arg::NumThreads => "pomp2_num_threads".into(),
        }
    }

    fn note_call(&mut self, unit: Option<usize>, region: usize, call: &Call) {
        let Some(unit) = unit else { return };
        let needs = self.needs.entry(unit).or_default();
        needs.regions.insert(region);
        for arg in call.args {
            match arg {
                Arg::OldTask | Arg::OldTaskRef => needs.old_task = true,
                Arg::NewTask | Arg::NewTaskRef => needs.new_task = true,
                Arg::If => needs.if_value = true,
                Arg::NumThreads => needs.num_threads = true,
                Arg::Handle | Arg::Ctc => {}
            }
        }
    }

    pub(super) fn calls(&mut self, unit: Option<usize>, region: usize, calls: &[Call]) -> String {
        let indent = self.indent(unit);
        let mut out = String::new();
        for call in calls {
            self.note_call(unit, region, call);
            let r = &self.plan.regions[region];
            let args: Vec<String> = call.args.iter().map(|a| self.arg(r, a)).collect();
            let text = format!(
                "call {}({})",
                self.plan.function(call.event),
                args.join(", ")
            );
            out.push_str(&self.statement(&indent, &text));
        }
        out
    }

    pub(super) fn implicit_barrier(&mut self, unit: Option<usize>, region: usize) -> String {
        let pair = &self.plan.implicit_barrier;
        let mut out = self.calls(unit, region, &pair.before);
        out.push_str("!$omp barrier\n");
        out.push_str(&self.calls(unit, region, &pair.after));
        out
    }

    /// Evaluation of the values a directive's clauses get instead of the
    /// user's expressions.
    pub(super) fn assignments(&mut self, unit: Option<usize>, vars: &[Var]) -> String {
        let indent = self.indent(unit);
        let mut out = String::new();
        // Code outside every unit declares nothing.
        let mut outside = UnitNeeds::default();
        for var in vars {
            let needs = match unit {
                Some(unit) => self.needs.entry(unit).or_default(),
                None => &mut outside,
            };
            let text = match var {
                Var::NumThreads(expression) => {
                    needs.num_threads = true;
                    needs.max_threads |= expression.is_none();
                    needs.thread_private |= self.plan.thread_private.is_some();
                    match expression {
                        Some(e) => format!("pomp2_num_threads = {e}"),
                        None => "pomp2_num_threads = pomp2_lib_get_max_threads()".into(),
                    }
                }
                Var::NumThreadsFromTeams => {
                    needs.num_threads = true;
                    needs.teams_max_threads = true;
                    needs.thread_private |= self.plan.thread_private.is_some();
                    format!("pomp2_num_threads = {MAX_THREADS_VAR}")
                }
                Var::MaxThreads => {
                    needs.max_threads = true;
                    needs.teams_max_threads = true;
                    format!("{MAX_THREADS_VAR} = pomp2_lib_get_max_threads()")
                }
                Var::If(expression) => {
                    needs.if_value = true;
                    match expression {
                        Some(e) => format!("pomp2_if = ({e})"),
                        None => "pomp2_if = .true.".into(),
                    }
                }
                Var::OldTask => {
                    needs.old_task = true;
                    continue;
                }
                Var::NewTask => {
                    needs.new_task = true;
                    continue;
                }
            };
            out.push_str(&self.statement(&indent, &text));
        }
        out
    }
}
