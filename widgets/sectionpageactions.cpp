// SPDX-License-Identifier: MIT
// A section page's action buttons: made once for the section's patterns,
// shown and enabled for the selected object.
#include "sectionpage.h"

#include "actionrightsgate.h"
#include "queuejobspanel.h"

#include <patterns/article.h>
#include <patterns/objecthealth.h>

#include <QLabel>
#include <QLayout>
#include <QPushButton>

#include <algorithm>

namespace gatehouse {

// Every action the section's patterns offer, once each; a click acts on the
// selected object if its pattern offers it.
void SectionPage::addActionButtons(QLayout *bar)
{
    QStringList ids;
    for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(m_section.id)) {
        for (const PatternAction &action : unit->actions()) {
            if (ids.contains(action.id))
                continue;
            ids << action.id;
            auto *button = new QPushButton(action.label, this);
            button->setObjectName(action.objectName);
            button->setProperty("sectionLabel", action.label); // with no selection
            button->setProperty("patternAction", action.id);   // an action, not navigation
            button->setProperty("targetIsPrefix", action.targetIsPrefix);
            bar->addWidget(button);
            m_actionButtons << button;
            connect(button, &QPushButton::clicked, this, [this, id = action.id] { actOn(id); });
        }
    }
}

void SectionPage::updateActions(const ObjectState *s)
{
    // An action that cannot apply to the selected object is disabled and
    // its tooltip says why (a SETNX
    // lock has no token to check, a vanished lock nothing to release, a
    // Redisson limiter refuses a reset).
    QHash<QString, PatternAction> offered;
    // Keys that resemble a pattern without matching it are shown read-only:
    // no script of the pattern's may misread them.
    const QString unknownLayout
        = s && !s->gone && !s->reading.library().layoutKnown
              ? tr("%1 is not %2 layout Gatehouse knows, so it is shown read-only and "
                   "nothing acts on it. %3")
                    .arg(printableBytes(s->object->key, 60),
                         withArticle(PatternUnit::of(s->object->kind).title()), s->reading.message)
                    .trimmed()
              : QString();
    if (s) {
        for (const PatternAction &a : PatternUnit::of(s->object->kind).actions())
            offered.insert(a.id, a);
    }
    for (QPushButton *button : std::as_const(m_actionButtons)) {
        const QString id = button->property("patternAction").toString();
        const bool prefix = button->property("targetIsPrefix").toBool();
        // The selected pattern's own actions, in its words (Resque's retry is
        // "Retry failed job…"); a pattern offering none of the section's (a
        // SETNX lock) shows them all, disabled with the reason. With nothing
        // selected, only what needs no selection (token issue's prefix).
        button->setVisible(s ? offered.isEmpty() || offered.contains(id) : prefix);
        const auto own = s ? offered.constFind(id) : offered.cend();
        button->setText(own != offered.cend() ? own->label
                                              : button->property("sectionLabel").toString());
        QString why;
        if (m_readOnly) {
            why = tr("Read-only mode: actions are disabled (started with --read-only).");
        } else if (!m_offline.isEmpty()) {
            why = m_offline + QLatin1Char(' ') + tr("Actions are disabled until it is back.");
        } else if (!s && !prefix) {
            const QString family = familyHint();
            why = family.isEmpty() ? tr("Select one in the table first.") : family;
        } else if (s && !prefix) {
            const auto a = offered.constFind(id);
            if (a == offered.cend())
                why = whyNotOffered(s->object->kind, PatternUnit::of(s->object->kind).title(),
                                    button->text());
            else if (s->gone)
                why = tr("%1 is gone (its keys expired or were deleted): nothing to act on.")
                          .arg(printableBytes(s->object->key, 60));
            else if (!unknownLayout.isEmpty())
                why = unknownLayout;
            else
                why = actionUnavailable(id, *s);
            if (why.isEmpty() && m_rights && a != offered.cend())
                why = m_rights->denied(*a, *s, server());
        }
        button->setEnabled(why.isEmpty());
        button->setToolTip(why);
    }
    // Nothing selected: the actions wait for a row, and this says so.
    const bool waiting
        = !s && std::any_of(m_actionButtons.cbegin(), m_actionButtons.cend(), [](QPushButton *b) {
              return !b->property("targetIsPrefix").toBool();
          });
    if (waiting) {
        const QString family = familyHint();
        m_actionsHint->setText(family.isEmpty() ? tr("Select a row to see what can be done to it.")
                                                : family);
    }
    m_actionsHint->setVisible(waiting);
    if (!m_jobsPanel)
        return;
    m_jobsPanel->setRightsCheck(s && m_rights ? m_rights->checkFor(*s, server()) : nullptr);
    m_jobsPanel->setBlocked(
        m_readOnly ? tr("Read-only mode: actions are disabled (started with --read-only).")
        : !m_offline.isEmpty()
            ? m_offline + QLatin1Char(' ') + tr("Actions are disabled until it is back.")
            : unknownLayout);
}

} // namespace gatehouse
