// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QStatusBar;

namespace gatehouse {

// A status bar message longer than the bar shows ("Requeued 3 of 4; not
// done: …its w"): a "details" link beside it opens the whole message, and
// stays for the last long one after the bar has cleared it.
class StatusDetails : public QObject
{
    Q_OBJECT
public:
    explicit StatusDetails(QStatusBar *bar);

    QString text() const { return m_text; } // the message the link opens
    bool linkShown() const;
    void open(); // the details popup (not modal)

private:
    void onMessage(const QString &message);
    int roomForMessage() const;

    QStatusBar *m_bar;
    QLabel *m_link;
    QString m_text;
};

} // namespace gatehouse
