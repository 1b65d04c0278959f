// SPDX-License-Identifier: MIT
#include "statusdetails.h"

#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>

namespace gatehouse {

StatusDetails::StatusDetails(QStatusBar *bar)
    : QObject(bar)
    , m_bar(bar)
    , m_link(new QLabel(bar))
{
    m_link->setObjectName(QStringLiteral("statusDetailsLink"));
    m_link->setText(QStringLiteral("<a href=\"details\">%1</a>").arg(tr("details…")));
    m_link->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_link->setToolTip(tr("The whole of the last message"));
    m_bar->insertPermanentWidget(0, m_link);
    m_link->hide();
    connect(m_link, &QLabel::linkActivated, this, &StatusDetails::open);
    connect(m_bar, &QStatusBar::messageChanged, this, &StatusDetails::onMessage);
}

bool StatusDetails::linkShown() const
{
    return !m_link->isHidden();
}

int StatusDetails::roomForMessage() const
{
    // The message is drawn left of the permanent widgets.
    int taken = 0;
    const auto children = m_bar->findChildren<QWidget *>(Qt::FindDirectChildrenOnly);
    for (const QWidget *w : children) {
        if (w != m_link && w->isVisible() && w->geometry().left() > m_bar->width() / 3)
            taken += w->width();
    }
    return m_bar->width() - taken - m_link->sizeHint().width() - 24;
}

void StatusDetails::onMessage(const QString &message)
{
    if (message.isEmpty())
        return; // cleared (a timeout): the last long message stays reachable
    const bool cut = message.contains(QLatin1Char('\n'))
                     || m_bar->fontMetrics().horizontalAdvance(message) > roomForMessage();
    if (!cut) {
        m_link->hide();
        m_text.clear();
        return;
    }
    m_text = message;
    m_link->setToolTip(message);
    m_link->show();
}

void StatusDetails::open()
{
    if (m_text.isEmpty())
        return;
    auto *box = new QMessageBox(QMessageBox::Information, tr("Last message"), m_text,
                                QMessageBox::Close, m_bar->window());
    box->setObjectName(QStringLiteral("statusDetailsBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->open();
}

} // namespace gatehouse
