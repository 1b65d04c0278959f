// SPDX-License-Identifier: MIT
#include "objectpanel.h"

#include "locktimelinepanel.h"
#include "tokenlistpanel.h"

namespace gatehouse {

// The registration: a section id and the panels its page gets.
QList<ObjectPanel *> ObjectPanel::create(const QString &section, const Context &context,
                                         QWidget *parent)
{
    QList<ObjectPanel *> panels;
    if (section == QLatin1String("token"))
        panels << new TokenListPanel(context, parent);
    if (section == QLatin1String("lock"))
        panels << new LockTimelinePanel(parent);
    return panels;
}

} // namespace gatehouse
